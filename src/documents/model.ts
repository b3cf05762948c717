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
