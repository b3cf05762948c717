import { z } from "zod";
import { wholeNumber } from "../http/whole-number";

/** Largest chunk the API accepts, in tokens; well past the embedder's 256-token window. */
export const MAX_CHUNK_SIZE = 8192;
export const MIN_CHUNK_SIZE = 16;


/** Query and form flags as written: `true`/`false`/`1`/`0` (read with `isSet`). */
const booleanFlag = z.enum(["true", "false", "1", "0"], "expected true or false");
export const isSet = (flag: z.infer<typeof booleanFlag>) => flag === "true" || flag === "1";

/** A chunking configuration; a variant of a version is one of these. Defaults are filled by `resolveChunking`. */
export const chunkingFields = {
  chunking_strategy: z.enum(["recursive", "semantic"]).optional(),
  chunk_size: wholeNumber(MIN_CHUNK_SIZE, MAX_CHUNK_SIZE).optional(),
  chunk_overlap: wholeNumber(0, MAX_CHUNK_SIZE - 1).optional(),
  /** Aliases of chunk_size and chunk_overlap under the names RAG tools use (both count the embedding model's tokens). */
  max_tokens: wholeNumber(MIN_CHUNK_SIZE, MAX_CHUNK_SIZE).optional(),
  overlap_tokens: wholeNumber(0, MAX_CHUNK_SIZE - 1).optional(),
  /** Embed each chunk with its section path in front (JSON boolean, or a form field true/false/1/0). */
  contextual_prefix: z.union([z.boolean(), booleanFlag]).optional(),
  /** Replace data protection findings by placeholders in the stored chunk text; default: the workspace's data_protection.redact_documents. */
  redact_findings: z.union([z.boolean(), booleanFlag]).optional(),
  /** A table of at most this many tokens stays in the text chunk around it instead of becoming its own table chunk; 0 (default) never. */
  table_inline_max_tokens: wholeNumber(0, MAX_CHUNK_SIZE).optional(),
};

export const variantBody = z.strictObject(chunkingFields).meta({ examples: [{ chunking_strategy: "semantic", chunk_size: 256 }] });
export type ChunkingRequest = z.infer<typeof variantBody>;

const uploadOptionFields = {
  ...chunkingFields,
  parent_document_id: z.string().min(1).max(200).optional(),
  /** Overrides the detected type only as a hint: the bytes decide (see parsing/detect-format.ts). */
  mime_type: z.string().min(1).max(200).optional(),
};

export const PLAIN_FILE_NAME = "must be a plain file name (no path separators or control characters)";

const filename = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(255)
  .refine((name) => !/[\u0000-\u001f/\\]/.test(name), PLAIN_FILE_NAME);

/** JSON upload: the file as base64 or as text. */
export const jsonUploadBody = z
  .strictObject({
    ...uploadOptionFields,
    filename,
    content_base64: z.string().regex(/^[A-Za-z0-9+/\s]*={0,2}\s*$/, "must be standard base64").optional(),
    text: z.string().optional(),
  })
  .refine((body) => (body.content_base64 === undefined) !== (body.text === undefined), {
    message: "send exactly one of content_base64 or text",
    path: ["content_base64"],
  });

/** Multipart upload: `file` plus these form fields. */
export const multipartUploadFields = z.strictObject({ ...uploadOptionFields, filename });

export type UploadOptions = Omit<z.infer<typeof multipartUploadFields>, "filename">;


const paging = {
  limit: wholeNumber(1, 1000).default(100),
  offset: wholeNumber(0, Number.MAX_SAFE_INTEGER).default(0),
};

/**
 * Spec §4.3 / §8: limit 1..1000 (default 100), offset ≥ 0 (default 0), include_full_metadata (default false);
 * exclude_flagged (default false): leave out chunks the firewall flagged (total counts the others).
 */
export const chunksQuery = z.object({ ...paging, include_full_metadata: booleanFlag.default("false"), exclude_flagged: booleanFlag.default("false") });
export type ChunksQuery = z.infer<typeof chunksQuery>;

export const documentsQuery = z.object(paging);

export const documentParams = z.object({ document_id: z.string() });
export const variantParams = z.object({ variant_id: z.string() });

/** The chunk types a filter may name (spec §2.1). */
const CHUNK_TYPES = ["text", "table", "image", "code"] as const;
const weight = z.number().min(0).max(10);

/**
 * POST /api/documents/search. Every filter narrows the chunks searched; by default the latest
 * version of each document chain is searched (docs/search.md), without the chunks the firewall
 * flagged (metadata.injection) unless `include_flagged` is true.
 */
export const searchBody = z.strictObject({
  query: z.string().trim().min(1, "must not be empty").max(2000),
  limit: z.int().min(1).max(100).default(10),
  include_flagged: z.boolean().default(false),
  filters: z
    .strictObject({
      document_ids: z.array(z.string().min(1).max(200)).min(1).max(1000).optional(),
      /** `*` any run of characters, `?` one character; case-insensitive. */
      filename: z.string().min(1).max(255).optional(),
      /** Search this version (any document's, latest or not) instead of the latest of every chain. */
      version_id: z.string().min(1).max(200).optional(),
      chunk_types: z.array(z.enum(CHUNK_TYPES)).min(1).optional(),
      /** Chunks whose section_hierarchy starts with these names. */
      section_prefix: z.array(z.string().min(1).max(500)).min(1).max(20).optional(),
      /** Chunks spanning at least one page in [from, to]. */
      pages: z
        .strictObject({ from: z.int().min(1).optional(), to: z.int().min(1).optional() })
        .refine((pages) => pages.from === undefined || pages.to === undefined || pages.from <= pages.to, { message: "from must not be after to", path: ["from"] })
        .optional(),
      /** Chunk metadata members equal to these values. */
      metadata: z
        .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "metadata keys are letters, digits and _"), z.union([z.string().max(500), z.number(), z.boolean()]))
        .refine((entries) => Object.keys(entries).length <= 20, "at most 20 members")
        .optional(),
    })
    .default({}),
  /** Reciprocal-rank fusion weights of the two rankings; 0 switches one off. */
  weights: z
    .strictObject({ vector: weight.default(1), keyword: weight.default(1) })
    .refine((weights) => weights.vector > 0 || weights.keyword > 0, { message: "at least one weight must be above 0", path: ["vector"] })
    .default({ vector: 1, keyword: 1 }),
}).meta({ examples: [{ query: "how are duplicates detected?", limit: 5, filters: { chunk_types: ["text"] } }] });
export type SearchRequest = z.infer<typeof searchBody>;
export type SearchFilters = SearchRequest["filters"];

// ---- Responses (documented in the OpenAPI document; the views in views.ts and service.ts write them) ----

const time = z.string().describe("ISO 8601 time");
const VARIANT_STATUS = z.enum(["pending", "processing", "completed", "failed"]);
const jsonObject = z.record(z.string(), z.unknown());

/** Spec §2.1. */
export const chunkView = z.object({
  id: z.string(),
  text: z.string(),
  page_number: z.int().nullable(),
  page_range: z.array(z.int()),
  section_hierarchy: z.array(z.string()),
  tokens: z.int(),
  chunk_index: z.int(),
  metadata: jsonObject.describe("Parser metadata, plus embedding_source (computed or copied) and injection (the firewall's verdict on the chunk: score, verdict, family, window)"),
  chunk_type: z.enum(CHUNK_TYPES),
  contains_table: z.boolean(),
  table_metadata: jsonObject.nullable().describe("rows, columns and headers of the chunk's table (of its first one for a text chunk holding tables kept inline, whose metadata.inline_tables lists them all)"),
  chunking_strategy: z.enum(["recursive", "semantic"]),
  section_number: z.string().nullable(),
  quality_score: z.number().nullable(),
  synthetic_context: z.string().nullable(),
  parent_chunk_id: z.string().nullable(),
  bounding_box: jsonObject.nullable(),
  dedup_strategy: z.enum(["exact", "high_reuse", "partial_reuse", "mixed_content", "fuzzy", "new"]),
  dedup_confidence: z.number(),
  is_reused: z.boolean(),
  dedup_source_chunk_id: z.string().nullable(),
  total_sentences: z.int(),
  reused_sentences_count: z.int(),
  new_sentences_count: z.int(),
  content_reuse_ratio: z.number(),
  embedding_recommendation: z.enum(["reuse", "consider_reuse", "regenerate"]),
  recommendation_confidence: z.enum(["high", "medium", "low"]),
  dedup_metadata: jsonObject.nullable().describe("Only with include_full_metadata=true"),
});

/** Spec §2.2. */
export const chunkList = z.object({ chunks: z.array(chunkView), total: z.int(), limit: z.int(), offset: z.int() });

/** Spec §2.3, plus the embedding work the variant computed and copied. */
export const dedupSummaryView = z.object({
  variant_id: z.string(),
  total_chunks: z.int(),
  chunk_breakdown: z.record(z.string(), z.int()),
  total_sentences: z.int(),
  reused_sentences: z.int(),
  new_sentences: z.int(),
  sentence_reuse_ratio: z.number(),
  embedding_recommendations: z.record(z.string(), z.int()),
  parent_version_id: z.string().nullable(),
  has_parent: z.boolean(),
  embeddings_computed: z.int(),
  embeddings_reused: z.int(),
});

const variantFields = {
  chunking_strategy: z.enum(["recursive", "semantic"]),
  chunk_size: z.int(),
  chunk_overlap: z.int(),
  contextual_prefix: z.boolean(),
  redact_findings: z.boolean().describe("Data protection findings replaced by placeholders in the stored chunks"),
  table_inline_max_tokens: z.int().describe("Tables of at most this many tokens stay in the text chunk around them (0: every table is its own chunk)"),
  status: VARIANT_STATUS,
  error: z.string().nullable(),
  chunks_count: z.int().nullable(),
  flagged_chunks: z.int().nullable().describe("Chunks the firewall flagged as injected (metadata.injection verdict block); null when not every chunk was scanned"),
  flags_current: z
    .boolean()
    .nullable()
    .describe("Whether the chunk flags were scanned with the workspace's current firewall patterns: false while a rescan after a pattern change is due; null with chunk flags off, before the variant is completed, or while the firewall is loading"),
};

export const variantView = z.object({
  id: z.string(),
  document_id: z.string(),
  version_id: z.string(),
  ...variantFields,
  has_parent: z.boolean(),
  parent_version_id: z.string().nullable(),
  pages_processed: z.int(),
  pages_saved: z.int(),
  embeddings_computed: z.int(),
  embeddings_reused: z.int(),
  attempts: z.int(),
  created_at: time,
  started_at: time.nullable(),
  completed_at: time.nullable(),
});

const fileFields = {
  filename: z.string(),
  content_hash: z.string().describe("SHA-256 of the bytes, hex"),
  file_size_bytes: z.int(),
  mime_type: z.string(),
  format: z.enum(["pdf", "docx", "xlsx", "pptx", "epub", "email", "csv", "html", "markdown", "text", "code"]),
  page_count: z.int(),
};

export const documentView = z.object({
  id: z.string(),
  ...fileFields,
  status: VARIANT_STATUS.describe("The status of the variant the upload created"),
  flagged_chunks: z.int().nullable().describe("The flagged chunks of that variant (null while it is processing, or when its chunks were not scanned)"),
  flags_current: variantFields.flags_current.describe("Whether that variant's chunk flags were scanned with the workspace's current firewall patterns (see the variant record)"),
  created_at: time,
  is_canonical: z.boolean(),
  canonical_document_id: z.string().nullable(),
  parent_document_id: z.string().nullable(),
  version_id: z.string(),
  version_number: z.int(),
  parent_version_id: z.string().nullable(),
  latest_version_id: z.string(),
  variants: z.array(variantView),
});

export const documentList = z.object({ documents: z.array(documentView), total: z.int(), limit: z.int(), offset: z.int() });

/** Spec §2.6, exactly: an upload with the same bytes as a document of the workspace. */
export const duplicateUploadView = z.object({
  variant_id: z.string(),
  document_id: z.string(),
  is_duplicate: z.literal(true),
  canonical_document_id: z.string(),
  processing_skipped: z.literal(true),
  cost_saved: z.int().describe("Pages not charged"),
  status: VARIANT_STATUS,
  chunks_count: z.int().nullable(),
});

/** A new document, or a new version of parent_document_id (deduplication_available true). */
export const newUploadView = z.object({
  document_id: z.string(),
  version_id: z.string(),
  version_number: z.int(),
  variant_id: z.string(),
  is_duplicate: z.literal(false),
  deduplication_available: z.boolean(),
  parent_document_id: z.string().nullable(),
  parent_version_id: z.string().nullable(),
  ...fileFields,
  ...variantFields,
  cost: z.int().describe("Pages processed"),
});

export const uploadResult = z.union([newUploadView, duplicateUploadView]);

export const deletedDocument = z.object({ document_id: z.string(), deleted: z.literal(true), promoted_canonical_document_id: z.string().nullable() });

/** Spec §2.4. */
export const duplicateInfo = z.object({ id: z.string(), filename: z.string(), is_canonical: z.boolean(), created_at: time, latest_version_id: z.string() });

export const documentDuplicatesView = z.object({ document_id: z.string(), duplicates: z.array(duplicateInfo), count: z.int().describe("Including the canonical") });

/** Spec §2.5 and §4.3. */
export const duplicateGroupsView = z.object({
  duplicate_groups: z.array(
    z.object({ content_hash: z.string(), canonical_document_id: z.string(), canonical_filename: z.string(), duplicates: z.array(duplicateInfo), total_count: z.int() }),
  ),
  total_groups: z.int(),
  total_duplicates: z.int().describe("Excluding canonicals"),
});

export const searchResults = z.object({
  results: z.array(
    chunkView.extend({
      score: z.number(),
      matched: z.array(z.enum(["vector", "keyword"])),
      vector_similarity: z.number().nullable(),
      document_id: z.string(),
      version_id: z.string(),
      variant_id: z.string(),
    }),
  ),
  query: z.string(),
  limit: z.int(),
});
