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
};

export const variantBody = z.strictObject(chunkingFields);
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

/** Spec §4.3 / §8: limit 1..1000 (default 100), offset ≥ 0 (default 0), include_full_metadata (default false). */
export const chunksQuery = z.object({ ...paging, include_full_metadata: booleanFlag.default("false") });
export type ChunksQuery = z.infer<typeof chunksQuery>;

export const documentsQuery = z.object(paging);

export const documentParams = z.object({ document_id: z.string() });
export const variantParams = z.object({ variant_id: z.string() });

/** The chunk types a filter may name (spec §2.1). */
const CHUNK_TYPES = ["text", "table", "image", "code"] as const;
const weight = z.number().min(0).max(10);

/**
 * POST /api/documents/search. Every filter narrows the chunks searched; by default the latest
 * version of each document chain is searched (docs/search.md). `include_flagged` is not a field
 * yet: the firewall's data-channel flags (issue 51) do not exist to exclude or show.
 */
export const searchBody = z.strictObject({
  query: z.string().trim().min(1, "must not be empty").max(2000),
  limit: z.int().min(1).max(100).default(10),
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
});
export type SearchRequest = z.infer<typeof searchBody>;
export type SearchFilters = SearchRequest["filters"];
