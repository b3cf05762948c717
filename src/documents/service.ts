/** The document API without HTTP: uploads, records, deletion with canonical promotion, duplicates, chunks, dedup summaries. */
import { createHash } from "node:crypto";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { summarise } from "../dedup";
import { HttpError, httpError, notFoundDetail } from "../http/errors";
import type { Logger } from "../logging/logger";
import type { WorkspaceScope } from "../tenancy/scope";
import type { ChunkingConfig } from "./chunking-config";
import { deleteVectorsOf, readChunks } from "./chunk-store";
import { dedupResultOf } from "./dedup-columns";
import type { DocumentJobs } from "./jobs";
import { isSet, type ChunksQuery } from "./model";
import type { DocumentParser } from "./document-parser";
import type { ParsedDocument } from "./parsing";
import { copyOfVariant, writeVariantResult } from "./processing";
import {
  ensureVariant,
  findDocument,
  findVariant,
  findVersion,
  latestVersionOfChain,
  variantsOfVersion,
  versionOfDocument,
  type DocumentRow,
  type NewDocument,
  type NewVersion,
  type VariantRow,
  type VersionRow,
} from "./records";
import { documentBlobs, documentChunks, documents, documentVariants, documentVersions } from "./schema";
import { parseUploadedFile, type Upload } from "./upload";
import { addUsage } from "./usage";
import { chunkView, documentView, duplicateInfoView, fileFields, variantFields, variantView, type DocumentParts } from "./views";

/** How long an upload waits for its job before answering with status pending/processing. */
export const SYNC_WAIT_MS = 2_000;

export type DocumentsEnv = { jobs: DocumentJobs; log: Logger; parser: DocumentParser };

const documentNotFound = () => notFoundDetail("Document not found");
const variantNotFound = () => notFoundDetail("Variant not found");
const byCreation = [asc(documents.createdAt), asc(sql`rowid`)];

type Created = { document: DocumentRow; version: VersionRow; variant: VariantRow; canonical: DocumentRow | null };

export async function uploadDocument(env: DocumentsEnv, scope: WorkspaceScope, upload: Upload, config: ChunkingConfig) {
  const parentId = upload.options.parent_document_id;
  if (parentId !== undefined && !findDocument(scope, parentId)) throw documentNotFound();
  const contentHash = createHash("sha256").update(upload.bytes).digest("hex");
  // A duplicate is neither parsed nor chunked; anything else is parsed now, so a bad file is refused before anything is stored.
  const parsed = findCanonical(scope, contentHash) ? undefined : await parseUploadedFile(upload, env.parser, env.log);

  const created = scope.transaction((tx): Created => {
    if (parentId !== undefined && !findDocument(tx, parentId)) throw documentNotFound();
    const canonical = findCanonical(tx, contentHash);
    if (canonical) return createDuplicate(tx, canonical, upload, contentHash, config);
    if (!parsed) throw httpError(409, "conflict", "the document this upload duplicated was deleted meanwhile; send the file again");
    return createCanonical(tx, upload, contentHash, parsed, parentId, config);
  });

  if (created.variant.status !== "completed") {
    env.jobs.enqueue(scope.workspaceId, created.variant.id, parsed && { versionId: created.version.id, document: parsed });
    await env.jobs.waitFor(created.variant.id, SYNC_WAIT_MS);
  }
  const variant = findVariant(scope, created.variant.id) ?? created.variant;
  return created.canonical ? duplicateUploadView(created, variant) : uploadView(created, variant);
}

function findCanonical(scope: WorkspaceScope, contentHash: string): DocumentRow | undefined {
  return scope.select(documents, and(eq(documents.contentHash, contentHash), eq(documents.isCanonical, true))).get();
}

function createCanonical(
  tx: WorkspaceScope,
  upload: Upload,
  contentHash: string,
  parsed: ParsedDocument,
  parentId: string | undefined,
  config: ChunkingConfig,
): Created {
  const values = {
    id: crypto.randomUUID(),
    filename: upload.filename,
    contentHash,
    fileSizeBytes: upload.bytes.length,
    mimeType: parsed.mimeType,
    format: parsed.format,
    pageCount: parsed.pageCount,
    isCanonical: true,
    parentDocumentId: parentId ?? null,
  } satisfies NewDocument;
  // (Self-referencing tables defeat TypeScript's excess-property check on a literal passed to the generic insert: `satisfies` keeps it.)
  const document = tx.insert(documents, values).returning().get();
  tx.insert(documentBlobs, { contentHash, bytes: Buffer.from(upload.bytes) })
    .onConflictDoNothing()
    .run();
  const parentVersion = parentId === undefined ? undefined : versionOfDocument(tx, parentId);
  const version = insertVersion(tx, document.id, parentVersion);
  const { variant } = ensureVariant(tx, version.id, config);
  addUsage(tx, { documentsUploaded: 1 });
  return { document, version, variant, canonical: null };
}

/** Same bytes as a document of this workspace: no lineage, chunks copied from the canonical (now, when they exist). */
function createDuplicate(tx: WorkspaceScope, canonical: DocumentRow, upload: Upload, contentHash: string, config: ChunkingConfig): Created {
  const values = {
    id: crypto.randomUUID(),
    filename: upload.filename,
    contentHash,
    fileSizeBytes: upload.bytes.length,
    mimeType: canonical.mimeType,
    format: canonical.format,
    pageCount: canonical.pageCount,
    isCanonical: false,
    canonicalDocumentId: canonical.id,
  } satisfies NewDocument;
  const document = tx.insert(documents, values).returning().get();
  const version = insertVersion(tx, document.id, undefined);
  let { variant } = ensureVariant(tx, version.id, config);
  addUsage(tx, { documentsUploaded: 1, duplicatesDetected: 1 });
  const source = ensureVariant(tx, versionOfDocument(tx, canonical.id)!.id, config).variant;
  if (source.status === "completed") {
    writeVariantResult(tx, variant.id, copyOfVariant(tx, source, variant.id, canonical.pageCount));
    variant = findVariant(tx, variant.id)!;
  }
  return { document, version, variant, canonical };
}

/** Version 1 of a new chain, or the next number in the parent's chain. */
function insertVersion(tx: WorkspaceScope, documentId: string, parent: VersionRow | undefined): VersionRow {
  const chainId = parent?.chainId ?? documentId;
  const versionNumber = parent ? latestVersionOfChain(tx, chainId)!.versionNumber + 1 : 1;
  const values = { id: crypto.randomUUID(), documentId, chainId, versionNumber, parentVersionId: parent?.id ?? null } satisfies NewVersion;
  return tx.insert(documentVersions, values).returning().get();
}

/** Spec §2.6, exactly. */
function duplicateUploadView(created: Created, variant: VariantRow) {
  return {
    variant_id: variant.id,
    document_id: created.document.id,
    is_duplicate: true as const,
    canonical_document_id: created.canonical!.id,
    processing_skipped: true as const,
    cost_saved: created.canonical!.pageCount,
    status: variant.status,
    chunks_count: variant.chunksCount,
  };
}

function uploadView({ document, version }: Created, variant: VariantRow) {
  return {
    document_id: document.id,
    version_id: version.id,
    version_number: version.versionNumber,
    variant_id: variant.id,
    is_duplicate: false as const,
    deduplication_available: version.parentVersionId !== null,
    parent_document_id: document.parentDocumentId,
    parent_version_id: version.parentVersionId,
    ...fileFields(document),
    ...variantFields(variant),
    cost: document.pageCount,
  };
}

/** Processes the document's version with another chunking configuration (or retries a failed one). */
export async function requestVariant(env: DocumentsEnv, scope: WorkspaceScope, documentId: string, config: ChunkingConfig) {
  const document = findDocument(scope, documentId);
  if (!document) throw documentNotFound();
  const { variant, created } = ensureVariant(scope, versionOfDocument(scope, documentId)!.id, config);
  if (variant.status === "failed") {
    scope.update(documentVariants, { status: "pending", error: null, attempts: 0, completedAt: null }, eq(documentVariants.id, variant.id)).run();
  }
  if (variant.status !== "completed") {
    env.jobs.enqueue(scope.workspaceId, variant.id);
    await env.jobs.waitFor(variant.id, SYNC_WAIT_MS);
  }
  return { created, variant: variantView(findVariant(scope, variant.id) ?? variant, documentId) };
}

function documentParts(scope: WorkspaceScope, document: DocumentRow): DocumentParts {
  const version = versionOfDocument(scope, document.id)!;
  return { document, version, latestVersionId: latestVersionOfChain(scope, version.chainId)!.id, variants: variantsOfVersion(scope, version.id) };
}

export function getDocument(scope: WorkspaceScope, documentId: string) {
  const document = findDocument(scope, documentId);
  if (!document) throw documentNotFound();
  return documentView(documentParts(scope, document));
}

export function listDocuments(scope: WorkspaceScope, query: { limit: number; offset: number }) {
  const rows = scope
    .select(documents)
    .orderBy(desc(documents.createdAt), desc(sql`rowid`))
    .limit(query.limit)
    .offset(query.offset)
    .all();
  return { documents: rows.map((row) => documentView(documentParts(scope, row))), total: scope.count(documents), limit: query.limit, offset: query.offset };
}

/**
 * Deletes a document with its version, variants, chunks and vectors, in one transaction. A
 * deleted canonical hands its role to the oldest remaining duplicate; the duplicates' own
 * (copied) chunks are untouched. The stored bytes go with the last document of that hash.
 */
export function deleteDocument(scope: WorkspaceScope, documentId: string) {
  return scope.transaction((tx) => {
    const document = findDocument(tx, documentId);
    if (!document) throw documentNotFound();
    let promoted: string | null = null;
    if (document.isCanonical) {
      const heir = tx
        .select(documents, eq(documents.canonicalDocumentId, documentId))
        .orderBy(...byCreation)
        .limit(1)
        .get();
      if (heir) {
        promoted = heir.id;
        tx.update(documents, { isCanonical: true, canonicalDocumentId: null }, eq(documents.id, heir.id)).run();
        tx.update(documents, { canonicalDocumentId: heir.id }, eq(documents.canonicalDocumentId, documentId)).run();
      }
    }
    const version = versionOfDocument(tx, documentId);
    deleteVectorsOf(tx, version ? variantsOfVersion(tx, version.id).map((variant) => variant.id) : []);
    tx.delete(documents, eq(documents.id, documentId)).run();
    if (tx.count(documents, eq(documents.contentHash, document.contentHash)) === 0) {
      tx.delete(documentBlobs, eq(documentBlobs.contentHash, document.contentHash)).run();
    }
    return { document_id: documentId, deleted: true, promoted_canonical_document_id: promoted };
  });
}

function latestVersionIdOf(scope: WorkspaceScope, document: DocumentRow): string {
  return latestVersionOfChain(scope, versionOfDocument(scope, document.id)!.chainId)!.id;
}

/** The document's duplicate group (same content hash), canonical first, then by upload time. */
function hashGroup(scope: WorkspaceScope, contentHash: string): DocumentRow[] {
  return scope
    .select(documents, eq(documents.contentHash, contentHash))
    .orderBy(desc(documents.isCanonical), ...byCreation)
    .all();
}

/** GET /api/documents/{id}/duplicates: the group, canonical included. */
export function documentDuplicates(scope: WorkspaceScope, documentId: string) {
  const document = findDocument(scope, documentId);
  if (!document) throw documentNotFound();
  const group = hashGroup(scope, document.contentHash);
  return { document_id: documentId, duplicates: group.map((row) => duplicateInfoView(row, latestVersionIdOf(scope, row))), count: group.length };
}

/** GET /api/documents/duplicates: every hash with more than one document (spec §2.5). */
export function duplicateGroups(scope: WorkspaceScope) {
  const hashes = scope.all<{ content_hash: string }>(
    `select content_hash from documents where workspace_id = $workspace_id
      group by content_hash having count(*) > 1 order by min(created_at), content_hash`,
  );
  const groups = hashes.map(({ content_hash }) => {
    const [canonical, ...duplicates] = hashGroup(scope, content_hash);
    return {
      content_hash,
      canonical_document_id: canonical.id,
      canonical_filename: canonical.filename,
      duplicates: duplicates.map((row) => duplicateInfoView(row, latestVersionIdOf(scope, row))),
      total_count: duplicates.length,
    };
  });
  return { duplicate_groups: groups, total_groups: groups.length, total_duplicates: groups.reduce((sum, group) => sum + group.total_count, 0) };
}

export function getVariant(scope: WorkspaceScope, variantId: string) {
  const variant = findVariant(scope, variantId);
  if (!variant) throw variantNotFound();
  return variantView(variant, findVersion(scope, variant.versionId)!.documentId);
}

/** Chunks and summaries exist once a variant is completed; before that (or after a failure) the answer is 409 with the status. */
function completedVariant(scope: WorkspaceScope, variantId: string): VariantRow {
  const variant = findVariant(scope, variantId);
  if (!variant) throw variantNotFound();
  if (variant.status !== "completed") {
    const detail = variant.status === "failed" ? `variant processing failed: ${variant.error}` : `variant is ${variant.status}; retry when its status is completed`;
    throw new HttpError(409, { error: "variant_not_ready", detail, status: variant.status }, variant.status === "failed" ? {} : { "retry-after": "1" });
  }
  return variant;
}

export function listChunks(scope: WorkspaceScope, variantId: string, query: ChunksQuery) {
  const variant = completedVariant(scope, variantId);
  const rows = scope
    .select(documentChunks, eq(documentChunks.variantId, variantId))
    .orderBy(asc(documentChunks.chunkIndex))
    .limit(query.limit)
    .offset(query.offset)
    .all();
  return {
    chunks: rows.map((row) => chunkView(row, isSet(query.include_full_metadata))),
    total: variant.chunksCount ?? 0,
    limit: query.limit,
    offset: query.offset,
  };
}

/** Spec §2.3, plus the embedding work the variant computed and copied. */
export function dedupSummary(scope: WorkspaceScope, variantId: string) {
  const variant = completedVariant(scope, variantId);
  const summary = summarise(readChunks(scope, variantId).map(dedupResultOf), variant.parentVersionId);
  return { variant_id: variantId, ...summary, embeddings_computed: variant.embeddingsComputed, embeddings_reused: variant.embeddingsReused };
}
