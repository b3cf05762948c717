/** The document API without HTTP: uploads, records, deletion with canonical promotion, duplicates, chunks, dedup summaries. */
import { createHash } from "node:crypto";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { summarise } from "../dedup";
import { HttpError, httpError, notFoundDetail } from "../http/errors";
import type { Logger } from "../logging/logger";
import type { WorkspaceScope } from "../tenancy/scope";
import type { ChunkingConfig } from "./chunking-config";
import { readChunks } from "./chunk-store";
import { forgetVariantVectors } from "./search/vector-index";
import { dedupResultOf } from "./dedup-columns";
import type { DocumentJobs } from "./jobs";
import { isSet, type ChunksQuery } from "./model";
import type { DocumentParser } from "./document-parser";
import type { ParsedDocument } from "./parsing";
import { copyOfVariant, writeVariantResult } from "./processing";
import {
  ensureVariant,
  variantWithConfig,
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
import { chunkView, documentView, duplicateInfoView, fileFields, variantFields, variantView, type DocumentParts, type FlagsCurrent } from "./views";

/** How long an upload waits for its job before answering with status pending/processing. */
export const SYNC_WAIT_MS = 2_000;

export type DocumentsEnv = { jobs: DocumentJobs; log: Logger; parser: DocumentParser };

const documentNotFound = () => notFoundDetail("Document not found");
const variantNotFound = () => notFoundDetail("Variant not found");
/** Upload order: creation time, then insertion order (SQLite's rowid; PostgreSQL has none, the id breaks ties). */
const insertionOrder = (scope: WorkspaceScope) => (scope.dialect === "sqlite" ? sql`rowid` : documents.id);
const byCreation = (scope: WorkspaceScope) => [asc(documents.createdAt), asc(insertionOrder(scope))];

type Created = { document: DocumentRow; version: VersionRow; variant: VariantRow; canonical: DocumentRow | null };

/**
 * Stores an upload and queues its job. `endTurn` (from DocumentAdmission.enterUpload) is called
 * once the job is queued or the upload refused, before the short wait for the job's result.
 */
export async function uploadDocument(env: DocumentsEnv, scope: WorkspaceScope, upload: Upload, config: ChunkingConfig, endTurn: () => void) {
  let created: Created;
  try {
    created = await storeUpload(env, scope, upload, config);
  } finally {
    endTurn();
  }
  if (created.variant.status !== "completed") await env.jobs.waitFor(created.variant.id, SYNC_WAIT_MS);
  const variant = (await findVariant(scope, created.variant.id)) ?? created.variant;
  return created.canonical ? duplicateUploadView(created, variant) : uploadView(created, variant, await env.jobs.flagsCurrent(scope));
}

async function storeUpload(env: DocumentsEnv, scope: WorkspaceScope, upload: Upload, config: ChunkingConfig): Promise<Created> {
  const parentId = upload.options.parent_document_id;
  if (parentId !== undefined && !(await findDocument(scope, parentId))) throw documentNotFound();
  const contentHash = createHash("sha256").update(upload.bytes).digest("hex");
  // A duplicate is neither parsed nor chunked; anything else is parsed now, so a bad file is refused before anything is stored.
  const parsed = (await findCanonical(scope, contentHash)) ? undefined : await parseUploadedFile(upload, env.parser, env.log);

  const created = await scope.transaction(async (tx): Promise<Created> => {
    // Uploads of the same bytes take turns (across instances too): the second finds the first's canonical.
    await tx.serialise(`document:${contentHash}`);
    if (parentId !== undefined && !(await findDocument(tx, parentId))) throw documentNotFound();
    const canonical = await findCanonical(tx, contentHash);
    if (canonical) return createDuplicate(tx, canonical, upload, contentHash, config);
    if (!parsed) throw httpError(409, "conflict", "the document this upload duplicated was deleted meanwhile; send the file again");
    return createCanonical(tx, upload, contentHash, parsed, parentId, config);
  });
  if (created.variant.status !== "completed") {
    env.jobs.enqueue(scope.workspaceId, created.variant.id, parsed && { versionId: created.version.id, document: parsed, fileBytes: upload.bytes.length });
  }
  return created;
}

function findCanonical(scope: WorkspaceScope, contentHash: string): Promise<DocumentRow | undefined> {
  return scope.first(documents, and(eq(documents.contentHash, contentHash), eq(documents.isCanonical, true)));
}

async function createCanonical(
  tx: WorkspaceScope,
  upload: Upload,
  contentHash: string,
  parsed: ParsedDocument,
  parentId: string | undefined,
  config: ChunkingConfig,
): Promise<Created> {
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
  const [document] = await tx.insert(documents, values).returning();
  await tx.insert(documentBlobs, { contentHash, bytes: Buffer.from(upload.bytes.buffer, upload.bytes.byteOffset, upload.bytes.byteLength) }).onConflictDoNothing();
  const parentVersion = parentId === undefined ? undefined : await versionOfDocument(tx, parentId);
  const version = await insertVersion(tx, document!.id, parentVersion);
  const { variant } = await ensureVariant(tx, version.id, config);
  await addUsage(tx, { documentsUploaded: 1 });
  return { document: document!, version, variant, canonical: null };
}

/** Same bytes as a document of this workspace: no lineage, chunks copied from the canonical (now, when they exist). */
async function createDuplicate(tx: WorkspaceScope, canonical: DocumentRow, upload: Upload, contentHash: string, config: ChunkingConfig): Promise<Created> {
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
  const [document] = await tx.insert(documents, values).returning();
  const version = await insertVersion(tx, document!.id, undefined);
  let { variant } = await ensureVariant(tx, version.id, config);
  await addUsage(tx, { documentsUploaded: 1, duplicatesDetected: 1 });
  const source = (await ensureVariant(tx, (await versionOfDocument(tx, canonical.id))!.id, config)).variant;
  if (source.status === "completed") {
    await writeVariantResult(tx, variant.id, await copyOfVariant(tx, source, variant.id, canonical.pageCount));
    variant = (await findVariant(tx, variant.id))!;
  }
  return { document: document!, version, variant, canonical };
}

/** Version 1 of a new chain, or the next number in the parent's chain. */
async function insertVersion(tx: WorkspaceScope, documentId: string, parent: VersionRow | undefined): Promise<VersionRow> {
  const chainId = parent?.chainId ?? documentId;
  const versionNumber = parent ? (await latestVersionOfChain(tx, chainId))!.versionNumber + 1 : 1;
  const values = { id: crypto.randomUUID(), documentId, chainId, versionNumber, parentVersionId: parent?.id ?? null } satisfies NewVersion;
  return (await tx.insert(documentVersions, values).returning())[0]!;
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

function uploadView({ document, version }: Created, variant: VariantRow, flagsCurrent: FlagsCurrent) {
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
    ...variantFields(variant, flagsCurrent),
    cost: document.pageCount,
  };
}

/** Processes the document's version with another chunking configuration (or retries a failed one). */
export async function requestVariant(env: DocumentsEnv, scope: WorkspaceScope, documentId: string, config: ChunkingConfig) {
  const document = await findDocument(scope, documentId);
  if (!document) throw documentNotFound();
  const versionId = (await versionOfDocument(scope, documentId))!.id;
  const existing = await variantWithConfig(scope, versionId, config);
  // New work (a new variant, or a failed one again) waits its turn like an upload.
  if (!existing || existing.status === "failed") await env.jobs.admission.checkQueue(scope);
  const { variant, created } = await ensureVariant(scope, versionId, config);
  if (variant.status === "failed") {
    await scope.update(documentVariants, { status: "pending", error: null, attempts: 0, completedAt: null, leaseOwner: null, leaseUntil: null }, eq(documentVariants.id, variant.id));
  }
  if (variant.status !== "completed") {
    env.jobs.enqueue(scope.workspaceId, variant.id);
    await env.jobs.waitFor(variant.id, SYNC_WAIT_MS);
  }
  return { created, variant: variantView((await findVariant(scope, variant.id)) ?? variant, documentId, await env.jobs.flagsCurrent(scope)) };
}

async function documentParts(scope: WorkspaceScope, document: DocumentRow): Promise<DocumentParts> {
  const version = (await versionOfDocument(scope, document.id))!;
  return { document, version, latestVersionId: (await latestVersionOfChain(scope, version.chainId))!.id, variants: await variantsOfVersion(scope, version.id) };
}

export async function getDocument(env: DocumentsEnv, scope: WorkspaceScope, documentId: string) {
  const document = await findDocument(scope, documentId);
  if (!document) throw documentNotFound();
  return documentView(await documentParts(scope, document), await env.jobs.flagsCurrent(scope));
}

export async function listDocuments(env: DocumentsEnv, scope: WorkspaceScope, query: { limit: number; offset: number }) {
  const rows = await scope
    .select(documents)
    .orderBy(desc(documents.createdAt), desc(insertionOrder(scope)))
    .limit(query.limit)
    .offset(query.offset);
  const views = [];
  const flagsCurrent = await env.jobs.flagsCurrent(scope);
  for (const row of rows) views.push(documentView(await documentParts(scope, row), flagsCurrent));
  return { documents: views, total: await scope.count(documents), limit: query.limit, offset: query.offset };
}

/**
 * Deletes a document with its version, variants, chunks and vectors, in one transaction. A
 * deleted canonical hands its role to the oldest remaining duplicate; the duplicates' own
 * (copied) chunks are untouched. The stored bytes go with the last document of that hash.
 */
export async function deleteDocument(env: DocumentsEnv, scope: WorkspaceScope, documentId: string) {
  let variantIds: string[] = [];
  const deleted = await scope.transaction(async (tx) => {
    const document = await findDocument(tx, documentId);
    if (!document) throw documentNotFound();
    await tx.serialise(`document:${document.contentHash}`);
    let promoted: string | null = null;
    if (document.isCanonical) {
      const [heir] = await tx
        .select(documents, eq(documents.canonicalDocumentId, documentId))
        .orderBy(...byCreation(tx))
        .limit(1);
      if (heir) {
        promoted = heir.id;
        await tx.update(documents, { isCanonical: true, canonicalDocumentId: null }, eq(documents.id, heir.id));
        await tx.update(documents, { canonicalDocumentId: heir.id }, eq(documents.canonicalDocumentId, documentId));
      }
    }
    const version = await versionOfDocument(tx, documentId);
    variantIds = version ? (await variantsOfVersion(tx, version.id)).map((variant) => variant.id) : [];
    forgetVariantVectors(tx, variantIds);
    await tx.delete(documents, eq(documents.id, documentId));
    if ((await tx.count(documents, eq(documents.contentHash, document.contentHash))) === 0) {
      await tx.delete(documentBlobs, eq(documentBlobs.contentHash, document.contentHash));
    }
    return { document_id: documentId, deleted: true, promoted_canonical_document_id: promoted };
  });
  env.jobs.forget(variantIds);
  return deleted;
}

async function latestVersionIdOf(scope: WorkspaceScope, document: DocumentRow): Promise<string> {
  return (await latestVersionOfChain(scope, (await versionOfDocument(scope, document.id))!.chainId))!.id;
}

/** The document's duplicate group (same content hash), canonical first, then by upload time. */
function hashGroup(scope: WorkspaceScope, contentHash: string): Promise<DocumentRow[]> {
  return scope.select(documents, eq(documents.contentHash, contentHash)).orderBy(desc(documents.isCanonical), ...byCreation(scope));
}

async function duplicateInfoViews(scope: WorkspaceScope, rows: DocumentRow[]) {
  const views = [];
  for (const row of rows) views.push(duplicateInfoView(row, await latestVersionIdOf(scope, row)));
  return views;
}

/** GET /api/documents/{id}/duplicates: the group, canonical included. */
export async function documentDuplicates(scope: WorkspaceScope, documentId: string) {
  const document = await findDocument(scope, documentId);
  if (!document) throw documentNotFound();
  const group = await hashGroup(scope, document.contentHash);
  return { document_id: documentId, duplicates: await duplicateInfoViews(scope, group), count: group.length };
}

/** GET /api/documents/duplicates: every hash with more than one document (spec §2.5). */
export async function duplicateGroups(scope: WorkspaceScope) {
  const hashes = await scope.all<{ content_hash: string }>(
    `select content_hash from documents where workspace_id = $workspace_id
      group by content_hash having count(*) > 1 order by min(created_at), content_hash`,
  );
  const groups = [];
  for (const { content_hash } of hashes) {
    const [canonical, ...duplicates] = await hashGroup(scope, content_hash);
    groups.push({
      content_hash,
      canonical_document_id: canonical!.id,
      canonical_filename: canonical!.filename,
      duplicates: await duplicateInfoViews(scope, duplicates),
      total_count: duplicates.length,
    });
  }
  return { duplicate_groups: groups, total_groups: groups.length, total_duplicates: groups.reduce((sum, group) => sum + group.total_count, 0) };
}

export async function getVariant(env: DocumentsEnv, scope: WorkspaceScope, variantId: string) {
  const variant = await findVariant(scope, variantId);
  if (!variant) throw variantNotFound();
  return variantView(variant, (await findVersion(scope, variant.versionId))!.documentId, await env.jobs.flagsCurrent(scope));
}

/** Chunks and summaries exist once a variant is completed; before that (or after a failure) the answer is 409 with the status. */
async function completedVariant(scope: WorkspaceScope, variantId: string): Promise<VariantRow> {
  const variant = await findVariant(scope, variantId);
  if (!variant) throw variantNotFound();
  if (variant.status !== "completed") {
    const detail = variant.status === "failed" ? `variant processing failed: ${variant.error}` : `variant is ${variant.status}; retry when its status is completed`;
    throw new HttpError(409, "variant_not_ready", detail, variant.status === "failed" ? {} : { "retry-after": "1" }, { status: variant.status });
  }
  return variant;
}

export async function listChunks(scope: WorkspaceScope, variantId: string, query: ChunksQuery) {
  const variant = await completedVariant(scope, variantId);
  const excludeFlagged = isSet(query.exclude_flagged);
  const unflagged = excludeFlagged ? eq(documentChunks.injectionFlagged, false) : undefined;
  const rows = await scope
    .select(documentChunks, and(eq(documentChunks.variantId, variantId), unflagged))
    .orderBy(asc(documentChunks.chunkIndex))
    .limit(query.limit)
    .offset(query.offset);
  return {
    chunks: rows.map((row) => chunkView(row, isSet(query.include_full_metadata))),
    // Without flagged chunks, total counts the others: a client still pages until offset + returned reaches total.
    total: excludeFlagged ? await scope.count(documentChunks, eq(documentChunks.variantId, variantId), unflagged) : (variant.chunksCount ?? 0),
    limit: query.limit,
    offset: query.offset,
  };
}

/** Spec §2.3, plus the embedding work the variant computed and copied. */
export async function dedupSummary(scope: WorkspaceScope, variantId: string) {
  const variant = await completedVariant(scope, variantId);
  const summary = summarise((await readChunks(scope, variantId)).map(dedupResultOf), variant.parentVersionId);
  return { variant_id: variantId, ...summary, embeddings_computed: variant.embeddingsComputed, embeddings_reused: variant.embeddingsReused };
}
