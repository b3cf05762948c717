import { sql } from "drizzle-orm";
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex, type AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, workspaceIdColumn } from "../db/columns";
import type { DedupMetadata, DedupStrategy, EmbeddingRecommendation, RecommendationConfidence } from "../dedup";
import { workspaces } from "../tenancy/schema";
import type { ChunkMetadata, ChunkType, ChunkingStrategy, TableMetadata } from "./chunking";
import type { DocumentFormat } from "./parsing";

export const VARIANT_STATUSES = ["pending", "processing", "completed", "failed"] as const;
export type VariantStatus = (typeof VARIANT_STATUSES)[number];

/** One uploaded file. Exact duplicates (same SHA-256 in the workspace) are documents too, pointing at their canonical. */
export const documents = sqliteTable(
  "documents",
  {
    id: text("id").primaryKey(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    filename: text("filename").notNull(),
    /** SHA-256 of the uploaded bytes, hex. */
    contentHash: text("content_hash").notNull(),
    fileSizeBytes: integer("file_size_bytes").notNull(),
    mimeType: text("mime_type").notNull(),
    format: text("format").$type<DocumentFormat>().notNull(),
    pageCount: integer("page_count").notNull(),
    /** The first upload of a content hash; deleting it promotes the oldest duplicate. */
    isCanonical: integer("is_canonical", { mode: "boolean" }).notNull(),
    canonicalDocumentId: text("canonical_document_id").references((): AnySQLiteColumn => documents.id, { onDelete: "set null" }),
    /** The document this upload is a new version of (upload option parent_document_id). */
    parentDocumentId: text("parent_document_id").references((): AnySQLiteColumn => documents.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("documents_workspace_hash_idx").on(t.workspaceId, t.contentHash), index("documents_workspace_time_idx").on(t.workspaceId, t.createdAt)],
);

/**
 * The version a document is in its chain. Each upload is one document with exactly one version;
 * `chain_id` (the first document's id) groups the versions of one chain.
 */
export const documentVersions = sqliteTable(
  "document_versions",
  {
    id: text("id").primaryKey(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    documentId: text("document_id")
      .notNull()
      .references(() => documents.id, { onDelete: "cascade" }),
    chainId: text("chain_id").notNull(),
    versionNumber: integer("version_number").notNull(),
    parentVersionId: text("parent_version_id").references((): AnySQLiteColumn => documentVersions.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("document_versions_document_unique").on(t.documentId), index("document_versions_chain_idx").on(t.workspaceId, t.chainId)],
);

/**
 * One chunking configuration of one version, and its processing job: the status column is the
 * durable job state (pending → processing → completed | failed).
 */
export const documentVariants = sqliteTable(
  "document_variants",
  {
    id: text("id").primaryKey(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    versionId: text("version_id")
      .notNull()
      .references(() => documentVersions.id, { onDelete: "cascade" }),
    chunkingStrategy: text("chunking_strategy").$type<ChunkingStrategy>().notNull(),
    chunkSize: integer("chunk_size").notNull(),
    chunkOverlap: integer("chunk_overlap").notNull(),
    /** The chunks' section path is prepended to the text that is embedded (not to the chunk text). */
    contextualPrefix: integer("contextual_prefix", { mode: "boolean" }).notNull().default(false),
    /** Data protection findings (other than log ones) were replaced by placeholders in the stored chunk text. */
    redactFindings: integer("redact_findings", { mode: "boolean" }).notNull().default(false),
    /** Tables of at most this many tokens were chunked with the text around them; 0: every table is its own chunk. */
    tableInlineMaxTokens: integer("table_inline_max_tokens").notNull().default(0),
    status: text("status", { enum: VARIANT_STATUSES }).notNull(),
    error: text("error"),
    /** Times the job was started (a restart mid-job makes it more than 1). */
    attempts: integer("attempts").notNull().default(0),
    /** The version its chunks were deduplicated against, set on completion; kept if that version is deleted later. */
    parentVersionId: text("parent_version_id"),
    chunksCount: integer("chunks_count"),
    pagesProcessed: integer("pages_processed").notNull().default(0),
    pagesSaved: integer("pages_saved").notNull().default(0),
    embeddingsComputed: integer("embeddings_computed").notNull().default(0),
    embeddingsReused: integer("embeddings_reused").notNull().default(0),
    /** Chunks the firewall's data channel flagged (metadata.injection verdict block); null when the chunks were not scanned (firewall off, or processed before chunk flags). */
    flaggedChunks: integer("flagged_chunks"),
    /**
     * The workspace's patterns every chunk flag was scanned with (WorkspacePatterns.inputFingerprint);
     * null when not all were (chunk flags off, mixed, or stored before this column). A variant whose
     * value differs from the workspace's current one is scanned again (src/documents/flag-rescans.ts).
     */
    flagsCheckedWith: text("flags_checked_with"),
    createdAt: createdAt(),
    startedAt: timestamp("started_at"),
    completedAt: timestamp("completed_at"),
    /** The process running it (fleet mode: any instance may) and until when; a heartbeat extends it, an expired lease is taken over. */
    leaseOwner: text("lease_owner"),
    leaseUntil: timestamp("lease_until"),
  },
  (t) => [
    uniqueIndex("document_variants_config_unique").on(t.versionId, t.chunkingStrategy, t.chunkSize, t.chunkOverlap, t.contextualPrefix, t.redactFindings, t.tableInlineMaxTokens),
    index("document_variants_status_idx").on(t.status),
    // A chunk-flag rescan pass walks a workspace's completed variants by id (flag-rescans.ts).
    index("document_variants_workspace_status_idx").on(t.workspaceId, t.status, t.id),
  ],
);

/** Spec §2.1 chunks. `seq` is the rowid of the chunk's vector in the chunk_embeddings vec0 table. */
export const documentChunks = sqliteTable(
  "document_chunks",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    variantId: text("variant_id")
      .notNull()
      .references(() => documentVariants.id, { onDelete: "cascade" }),
    chunkIndex: integer("chunk_index").notNull(),
    text: text("text").notNull(),
    /** SHA-256 of the dedup-normalised text: equal hashes are exact chunk matches. */
    textHash: text("text_hash").notNull(),
    pageNumber: integer("page_number"),
    pageRange: text("page_range", { mode: "json" }).$type<number[]>().notNull(),
    sectionHierarchy: text("section_hierarchy", { mode: "json" }).$type<string[]>().notNull(),
    tokens: integer("tokens").notNull(),
    metadata: text("metadata", { mode: "json" }).$type<ChunkMetadata>().notNull(),
    chunkType: text("chunk_type").$type<ChunkType>().notNull(),
    containsTable: integer("contains_table", { mode: "boolean" }).notNull(),
    tableMetadata: text("table_metadata", { mode: "json" }).$type<TableMetadata>(),
    chunkingStrategy: text("chunking_strategy").$type<ChunkingStrategy>().notNull(),
    sectionNumber: text("section_number"),
    qualityScore: real("quality_score"),
    syntheticContext: text("synthetic_context"),
    parentChunkId: text("parent_chunk_id"),
    boundingBox: text("bounding_box", { mode: "json" }).$type<Record<string, number>>(),
    dedupStrategy: text("dedup_strategy").$type<DedupStrategy>().notNull(),
    dedupConfidence: real("dedup_confidence").notNull(),
    isReused: integer("is_reused", { mode: "boolean" }).notNull(),
    dedupSourceChunkId: text("dedup_source_chunk_id"),
    totalSentences: integer("total_sentences").notNull(),
    reusedSentencesCount: integer("reused_sentences_count").notNull(),
    newSentencesCount: integer("new_sentences_count").notNull(),
    contentReuseRatio: real("content_reuse_ratio").notNull(),
    embeddingRecommendation: text("embedding_recommendation").$type<EmbeddingRecommendation>().notNull(),
    recommendationConfidence: text("recommendation_confidence").$type<RecommendationConfidence>().notNull(),
    dedupMetadata: text("dedup_metadata", { mode: "json" }).$type<DedupMetadata>().notNull(),
    /** True when the vector was copied from another chunk instead of computed. */
    embeddingCopied: integer("embedding_copied", { mode: "boolean" }).notNull(),
    /**
     * metadata.injection's verdict is block: a column of its own so that search and the chunks
     * endpoint leave flagged chunks out without reading every chunk's JSON.
     */
    injectionFlagged: integer("injection_flagged", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    uniqueIndex("document_chunks_id_unique").on(t.id),
    uniqueIndex("document_chunks_variant_index_unique").on(t.variantId, t.chunkIndex),
    index("document_chunks_workspace_hash_idx").on(t.workspaceId, t.textHash),
  ],
);

/**
 * Uploaded bytes, one row per content hash in a workspace (duplicates share it), kept while a
 * document with that hash exists: jobs resumed after a restart and later variants parse them again.
 */
export const documentBlobs = sqliteTable(
  "document_blobs",
  {
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    contentHash: text("content_hash").notNull(),
    bytes: blob("bytes", { mode: "buffer" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.contentHash] })],
);

/** Running totals per workspace (GET /api/usage); they survive document deletion. */
export const documentUsage = sqliteTable("document_usage", {
  workspaceId: workspaceIdColumn()
    .primaryKey()
    .references(() => workspaces.id, { onDelete: "cascade" }),
  documentsUploaded: integer("documents_uploaded").notNull().default(0),
  duplicatesDetected: integer("duplicates_detected").notNull().default(0),
  variantsProcessed: integer("variants_processed").notNull().default(0),
  pagesProcessed: integer("pages_processed").notNull().default(0),
  pagesSaved: integer("pages_saved").notNull().default(0),
  chunksCreated: integer("chunks_created").notNull().default(0),
  embeddingsComputed: integer("embeddings_computed").notNull().default(0),
  embeddingsReused: integer("embeddings_reused").notNull().default(0),
  updatedAt: timestamp("updated_at")
    .notNull()
    .default(sql`(unixepoch() * 1000)`),
});
