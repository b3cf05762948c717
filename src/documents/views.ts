/** Database rows → API JSON (snake_case, ISO times). Field lists are the documented response shapes. */
import type { ChunkRow } from "./chunk-store";
import type { DocumentRow, VariantRow, VersionRow } from "./records";
import { dedupResultOf } from "./dedup-columns";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** Whether a variant's chunk flags were scanned with the workspace's current patterns (DocumentJobs.flagsCurrent). */
export type FlagsCurrent = (variant: VariantRow) => boolean | null;

/** A variant's configuration and progress, as the variant record and the upload result both show them. */
export function variantFields(variant: VariantRow, flagsCurrent: FlagsCurrent) {
  return {
    chunking_strategy: variant.chunkingStrategy,
    chunk_size: variant.chunkSize,
    chunk_overlap: variant.chunkOverlap,
    contextual_prefix: variant.contextualPrefix,
    redact_findings: variant.redactFindings,
    table_inline_max_tokens: variant.tableInlineMaxTokens,
    status: variant.status,
    error: variant.error,
    chunks_count: variant.chunksCount,
    /** Chunks the firewall flagged (metadata.injection verdict block); null when not every chunk was scanned. */
    flagged_chunks: variant.flaggedChunks,
    /** False while a rescan under the workspace's changed patterns is due (flag-rescans.ts). */
    flags_current: flagsCurrent(variant),
  };
}

export function variantView(variant: VariantRow, documentId: string, flagsCurrent: FlagsCurrent) {
  return {
    id: variant.id,
    document_id: documentId,
    version_id: variant.versionId,
    ...variantFields(variant, flagsCurrent),
    /** Set once completed: the version the chunks were deduplicated against. */
    has_parent: variant.parentVersionId !== null,
    parent_version_id: variant.parentVersionId,
    pages_processed: variant.pagesProcessed,
    pages_saved: variant.pagesSaved,
    embeddings_computed: variant.embeddingsComputed,
    embeddings_reused: variant.embeddingsReused,
    attempts: variant.attempts,
    created_at: iso(variant.createdAt),
    started_at: iso(variant.startedAt),
    completed_at: iso(variant.completedAt),
  };
}

export type DocumentParts = { document: DocumentRow; version: VersionRow; latestVersionId: string; variants: VariantRow[] };

/** The file facts every document-shaped response carries. */
export function fileFields(document: DocumentRow) {
  return {
    filename: document.filename,
    content_hash: document.contentHash,
    file_size_bytes: document.fileSizeBytes,
    mime_type: document.mimeType,
    format: document.format,
    page_count: document.pageCount,
  };
}

export function documentView({ document, version, latestVersionId, variants }: DocumentParts, flagsCurrent: FlagsCurrent) {
  return {
    id: document.id,
    ...fileFields(document),
    /** The status of the variant the upload created. */
    status: variants[0]?.status ?? "pending",
    /** The flagged chunks of that variant (null while it is processing, or when its chunks were not scanned). */
    flagged_chunks: variants[0]?.flaggedChunks ?? null,
    flags_current: variants[0] ? flagsCurrent(variants[0]) : null,
    created_at: iso(document.createdAt),
    is_canonical: document.isCanonical,
    canonical_document_id: document.canonicalDocumentId,
    parent_document_id: document.parentDocumentId,
    version_id: version.id,
    version_number: version.versionNumber,
    parent_version_id: version.parentVersionId,
    latest_version_id: latestVersionId,
    variants: variants.map((variant) => variantView(variant, document.id, flagsCurrent)),
  };
}

/** Spec §2.4. */
export function duplicateInfoView(document: DocumentRow, latestVersionId: string) {
  return {
    id: document.id,
    filename: document.filename,
    is_canonical: document.isCanonical,
    created_at: iso(document.createdAt),
    latest_version_id: latestVersionId,
  };
}

/** Spec §2.1; dedup_metadata only on request (include_full_metadata). */
export function chunkView(row: ChunkRow, fullMetadata: boolean) {
  return {
    id: row.id,
    text: row.text,
    page_number: row.pageNumber,
    page_range: row.pageRange,
    section_hierarchy: row.sectionHierarchy,
    tokens: row.tokens,
    chunk_index: row.chunkIndex,
    metadata: { ...row.metadata, embedding_source: row.embeddingCopied ? "copied" : "computed" },
    chunk_type: row.chunkType,
    contains_table: row.containsTable,
    table_metadata: row.tableMetadata,
    chunking_strategy: row.chunkingStrategy,
    section_number: row.sectionNumber,
    quality_score: row.qualityScore,
    synthetic_context: row.syntheticContext,
    parent_chunk_id: row.parentChunkId,
    bounding_box: row.boundingBox,
    ...dedupResultOf(row),
    dedup_metadata: fullMetadata ? row.dedupMetadata : null,
  };
}
