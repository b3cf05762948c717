import { Elysia } from "elysia";
import { bodyLimit, SMALL_JSON_BODY_BYTES } from "../http/bounded-body";
import type { AppContext } from "../runtime/context";
import { bearerKeyAuth } from "../tenancy/auth";
import { redactsDocumentsByDefault } from "../data-protection/documents";
import { resolveChunking } from "./chunking-config";
import { documentJobs } from "./jobs";
import {
  chunkList,
  chunksQuery,
  dedupSummaryView,
  deletedDocument,
  documentDuplicatesView,
  documentList,
  documentParams,
  documentsQuery,
  documentView,
  duplicateGroupsView,
  jsonUploadBody,
  multipartUploadFields,
  newUploadView,
  searchBody,
  searchResults,
  uploadResult,
  variantBody,
  variantParams,
  variantView,
} from "./model";
import { searchChunks } from "./search/service";
import {
  dedupSummary,
  deleteDocument,
  documentDuplicates,
  duplicateGroups,
  getDocument,
  getVariant,
  listChunks,
  listDocuments,
  requestVariant,
  uploadDocument,
  type DocumentsEnv,
} from "./service";
import { readUpload } from "./upload";
import { BEARER_KEY_SECURITY } from "../docs/security";
import { AUTH_ERRORS, errors, json, specNotFoundBody, toJsonSchema } from "../docs/responses";

/** The upload body is read by hand (two content types); these schemas only document it. */
const multipartSchema = toJsonSchema(multipartUploadFields, "input") as { properties: Record<string, unknown> };
/** A second version of a first upload: the ids are the ones the first upload answered. */
const NEW_VERSION_EXAMPLE = { parent_document_id: "4f6f4c1e-8a0e-4a55-9a3e-1f0c2b7d9e21", chunking_strategy: "recursive", chunk_size: 512, chunk_overlap: 64 };
const uploadRequestBody = {
  required: true,
  content: {
    "multipart/form-data": {
      schema: {
        ...multipartSchema,
        properties: { file: { type: "string", format: "binary", description: "The document's bytes (its type is detected from them)" }, ...multipartSchema.properties },
        required: ["file"],
      },
      // `@name` is curl's syntax for a file part: the reference's shell snippet then sends the file, not its name.
      examples: {
        new_document: { summary: "A new document (512-token chunks)", value: { file: "@handbook.pdf", chunking_strategy: "recursive", chunk_size: 512, chunk_overlap: 64 } },
        new_version: { summary: "A new version of an uploaded document", value: { file: "@handbook-v2.pdf", ...NEW_VERSION_EXAMPLE } },
      },
    },
    "application/json": {
      schema: toJsonSchema(jsonUploadBody, "input"),
      examples: {
        text: { summary: "Text, default chunking", value: { filename: "notes.md", text: "# Notes\n\nSieve chunks, embeds and deduplicates uploads." } },
        base64_version: { summary: "A file as base64, as a new version", value: { filename: "notes-v2.txt", content_base64: "U2lldmUgdjI=", ...NEW_VERSION_EXAMPLE } },
      },
    },
  },
};

const UPLOAD_DESCRIPTION =
  "multipart/form-data with a `file` part, or JSON `{filename, content_base64 | text}`. Optional fields: parent_document_id " +
  "(new version of that document), chunking_strategy (recursive | semantic), chunk_size (tokens, 16–8192, default 512; alias max_tokens), chunk_overlap (alias overlap_tokens), " +
  "contextual_prefix, redact_findings (replace data protection findings by placeholders in the stored chunks; default: the workspace's redact_documents), table_inline_max_tokens (a table of at most that many tokens stays in the text chunk around it; default 0: never), mime_type. 201 when processing finished within about 2 s, 202 (status pending/processing) otherwise: poll GET /api/documents/variants/{variant_id}. " +
  "An upload with the bytes of a document the workspace already has is a duplicate: no processing, the spec §2.6 body.";

const VARIANT_NOT_FOUND = { 404: specNotFoundBody("Variant not found") };
const DOCUMENT_NOT_FOUND = { 404: specNotFoundBody("Document not found") };
const NOT_READY = { 409: "The variant is not completed: its status is in the body (pending, processing, or failed with the reason); Retry-After while it runs (code variant_not_ready)" };

/**
 * The document API (spec §4.3); its totals are under GET /api/usage (src/usage). Clients send
 * Authorization: Bearer <API_KEY> (spec §5); the dashboard calls the same routes with its
 * session cookie (and X-CSRF-Token on changes).
 */
export const documentsController = (ctx: AppContext) => {
  const jobs = documentJobs(ctx);
  const env: DocumentsEnv = { jobs, log: ctx.log, parser: jobs.parser };
  return new Elysia({ prefix: "/api", detail: { tags: ["documents"], security: BEARER_KEY_SECURITY } })
    .use(bodyLimit)
    .use(bearerKeyAuth(ctx))
    .post(
      "/documents",
      async ({ request, scope, set }) => {
        ctx.embedder.require();
        // Admitted before its body is read: a refused upload costs no memory.
        const endTurn = await jobs.admission.enterUpload(scope);
        // Until uploadDocument owns the turn, any refusal (the body, its options) gives it back.
        const { upload, chunking } = await (async () => {
          const upload = await readUpload(request, ctx.config.maxUploadBytes);
          return { upload, chunking: resolveChunking(upload.options, await redactsDocumentsByDefault(scope)) };
        })().catch((error: unknown) => {
          endTurn();
          throw error;
        });
        const result = await uploadDocument(env, scope, upload, chunking, endTurn);
        set.status = result.status === "pending" || result.status === "processing" ? 202 : 201;
        return result;
      },
      {
        parse: "none",
        detail: {
          summary: "Upload a document",
          description: `Upload a document (PDF, DOCX, XLSX, PPTX, EPUB, e-mail, HTML, Markdown, CSV, text, source code) and process it into chunks. ${UPLOAD_DESCRIPTION}`,
          requestBody: uploadRequestBody as never,
          responses: {
            201: json("Processed: a new document or version, or a duplicate (spec §2.6)", uploadResult),
            202: json("Accepted and still processing (status pending or processing)", newUploadView),
            ...errors("sieve", [400, ...AUTH_ERRORS, 404, 408, 409, 413, 415, 422, 503], {
              400: "An invalid field (named), or an empty file",
              404: "parent_document_id names no document of the workspace",
              408: "The body did not arrive in time (code request_timeout)",
              409: "The document this upload duplicated was deleted meanwhile: send it again (code conflict)",
              413: "The file (or its decompressed content) is over --max-upload-bytes",
              415: "Neither multipart/form-data nor application/json, or a file format Sieve cannot read (code unsupported_format)",
              422: "A corrupt, unreadable or suspiciously compressed file (codes corrupt_file, unreadable_file, compression_ratio_too_high)",
              429: "The workspace's document queue is full (code document_queue_full), or a usage limit is reached",
              503: "The embedding model is loading, or the server's document queue is full",
            }, DOCUMENT_NOT_FOUND),
          },
        },
      },
    )
    .post(
      "/documents/search",
      ({ scope, body }) => {
        if (body.weights.vector > 0) ctx.embedder.require();
        return searchChunks(scope, body, (text) => ctx.vectors.embed(text, scope.workspaceId));
      },
      {
        body: searchBody,
        maxBodyBytes: SMALL_JSON_BODY_BYTES,
        detail: {
          summary: "Search chunks",
          description:
            "Vector and keyword rankings fused by reciprocal rank (docs/search.md). Searches the latest version of each document (canonical documents only) unless filters.version_id names one. Results are chunk objects " +
            "(spec §2.1) with score, matched (vector, keyword), vector_similarity, document_id, version_id and variant_id. Chunks the firewall flagged as " +
            "injected (metadata.injection.verdict block) are left out unless include_flagged is true.",
          responses: { 200: json("Matching chunks, best first", searchResults), ...errors("sieve", [400, ...AUTH_ERRORS, 413, 415, 503]) },
        },
      },
    )
    .get("/documents", ({ scope, query }) => listDocuments(env, scope, query), {
      query: documentsQuery,
      detail: {
        summary: "List documents",
        description: "The workspace's documents, newest first, paged by limit (default 100, 1–1000) and offset (default 0).",
        responses: { 200: json("A page of documents", documentList), ...errors("sieve", [400, ...AUTH_ERRORS]) },
      },
    })
    .get("/documents/duplicates", ({ scope }) => duplicateGroups(scope), {
      detail: {
        summary: "List duplicate groups",
        description: "Every group of the workspace's documents with the same content hash (spec §2.5, §4.3): the canonical and its duplicates.",
        responses: { 200: json("Duplicate groups", duplicateGroupsView), ...errors("sieve", AUTH_ERRORS) },
      },
    })
    .get("/documents/variants/:variant_id", ({ scope, params }) => getVariant(env, scope, params.variant_id), {
      params: variantParams,
      detail: {
        summary: "Get a variant",
        description: "A variant: its chunking configuration, processing status and embedding counts. Poll it after a 202 upload.",
        responses: { 200: json("The variant", variantView), ...errors("sieve", [...AUTH_ERRORS, 404], { 404: "Not a variant of the workspace (spec §7)" }, VARIANT_NOT_FOUND) },
      },
    })
    .get("/documents/variants/:variant_id/chunks", ({ scope, params, query }) => listChunks(scope, params.variant_id, query), {
      params: variantParams,
      query: chunksQuery,
      detail: {
        summary: "List a variant's chunks",
        description: "A completed variant's chunks by chunk_index (spec §2.1, §2.2). Page until offset plus the chunks returned reaches total; dedup_metadata only with include_full_metadata=true; exclude_flagged=true leaves out chunks the firewall flagged as injected.",
        responses: {
          200: json("A page of chunks", chunkList),
          ...errors("sieve", [400, ...AUTH_ERRORS, 404, 409], { 400: "limit outside 1–1000, a negative offset, or include_full_metadata or exclude_flagged not true/false", 404: "Not a variant of the workspace (spec §7)", ...NOT_READY }, VARIANT_NOT_FOUND),
        },
      },
    })
    .get("/documents/variants/:variant_id/dedup-summary", ({ scope, params }) => dedupSummary(scope, params.variant_id), {
      params: variantParams,
      detail: {
        summary: "Get a variant's dedup summary",
        description: "Deduplication of a completed variant against the parent version (spec §2.3), plus the embeddings computed and reused.",
        responses: { 200: json("The summary", dedupSummaryView), ...errors("sieve", [...AUTH_ERRORS, 404, 409], { 404: "Not a variant of the workspace (spec §7)", ...NOT_READY }, VARIANT_NOT_FOUND) },
      },
    })
    .get("/documents/:document_id", ({ scope, params }) => getDocument(env, scope, params.document_id), {
      params: documentParams,
      detail: {
        summary: "Get a document",
        description: "A document record with its version (number, parent, latest of its chain) and its variants.",
        responses: { 200: json("The document", documentView), ...errors("sieve", [...AUTH_ERRORS, 404], { 404: "Not a document of the workspace (spec §7)" }, DOCUMENT_NOT_FOUND) },
      },
    })
    .delete("/documents/:document_id", ({ scope, params }) => deleteDocument(env, scope, params.document_id), {
      params: documentParams,
      detail: {
        summary: "Delete a document",
        description: "Deletes the document with its version, variants, chunks and vectors. A deleted canonical promotes its oldest duplicate (spec §3).",
        responses: { 200: json("Deleted", deletedDocument), ...errors("sieve", [...AUTH_ERRORS, 404], { 404: "Not a document of the workspace (spec §7)" }, DOCUMENT_NOT_FOUND) },
      },
    })
    .get("/documents/:document_id/duplicates", ({ scope, params }) => documentDuplicates(scope, params.document_id), {
      params: documentParams,
      detail: {
        summary: "List a document's duplicates",
        description: "The document's duplicate group (same content hash), canonical included (spec §2.4, §4.3).",
        responses: { 200: json("The group", documentDuplicatesView), ...errors("sieve", [...AUTH_ERRORS, 404], { 404: "Not a document of the workspace (spec §7)" }, DOCUMENT_NOT_FOUND) },
      },
    })
    .post(
      "/documents/:document_id/variants",
      async ({ scope, params, body, set }) => {
        ctx.embedder.require();
        const result = await requestVariant(env, scope, params.document_id, resolveChunking(body, await redactsDocumentsByDefault(scope)));
        set.status = result.created ? 201 : 200;
        return result.variant;
      },
      {
        params: documentParams,
        body: variantBody,
        maxBodyBytes: SMALL_JSON_BODY_BYTES,
        detail: {
          summary: "Create a variant",
          description: "Processes the document with another chunking configuration (a new variant, 201), or answers the existing one (200); a failed variant is retried.",
          responses: {
            200: json("The variant with this configuration already existed", variantView),
            201: json("A new variant", variantView),
            ...errors("sieve", [400, ...AUTH_ERRORS, 404, 413, 415, 503], { 404: "Not a document of the workspace (spec §7)", 429: "The workspace's document queue is full, or a usage limit is reached" }, DOCUMENT_NOT_FOUND),
          },
        },
      },
    );
};
