import { Elysia } from "elysia";
import { bodyLimit, SMALL_JSON_BODY_BYTES } from "../http/bounded-body";
import type { AppContext } from "../runtime/context";
import { bearerKeyAuth } from "../tenancy/auth";
import { redactsDocumentsByDefault } from "../data-protection/documents";
import { resolveChunking } from "./chunking-config";
import { documentJobs } from "./jobs";
import { chunksQuery, documentParams, documentsQuery, jsonUploadBody, multipartUploadFields, searchBody, variantBody, variantParams } from "./model";
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

/** The upload body is read by hand (two content types); these schemas only document it. */
const multipartSchema = multipartUploadFields.toJSONSchema() as { properties: Record<string, unknown> };
const uploadRequestBody = {
  required: true,
  content: {
    "multipart/form-data": {
      schema: { ...multipartSchema, properties: { file: { type: "string", format: "binary" }, ...multipartSchema.properties }, required: ["file"] },
    },
    "application/json": { schema: jsonUploadBody.toJSONSchema() },
  },
};

const UPLOAD_DESCRIPTION =
  "multipart/form-data with a `file` part, or JSON `{filename, content_base64 | text}`. Optional fields: parent_document_id " +
  "(new version of that document), chunking_strategy (recursive | semantic), chunk_size (tokens; alias max_tokens), chunk_overlap (alias overlap_tokens), contextual_prefix, redact_findings (replace data protection findings by placeholders in the stored chunks; default the workspace's data_protection.redact_documents), mime_type. " +
  "201 when processing finished within about 2 s, 202 (status pending/processing) otherwise. An exact duplicate answers with spec §2.6.";

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
        const upload = await readUpload(request, ctx.config.maxUploadBytes).catch((error: unknown) => {
          endTurn();
          throw error;
        });
        const result = await uploadDocument(env, scope, upload, resolveChunking(upload.options, await redactsDocumentsByDefault(scope)), endTurn);
        set.status = result.status === "pending" || result.status === "processing" ? 202 : 201;
        return result;
      },
      {
        parse: "none",
        detail: {
          summary: "Upload a document (PDF, DOCX, HTML, Markdown, text, source code) and process it into chunks",
          description: UPLOAD_DESCRIPTION,
          requestBody: uploadRequestBody as never,
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
          summary: "Search the workspace's chunks: vector and keyword rankings fused by reciprocal rank (docs/search.md)",
          description:
            "Searches the latest version of each document (canonical documents only) unless filters.version_id names one. Results are chunk objects " +
            "(spec §2.1) with score, matched (vector, keyword), vector_similarity, document_id, version_id and variant_id.",
        },
      },
    )
    .get("/documents", ({ scope, query }) => listDocuments(scope, query), {
      query: documentsQuery,
      detail: { summary: "The workspace's documents, newest first" },
    })
    .get("/documents/duplicates", ({ scope }) => duplicateGroups(scope), {
      detail: { summary: "Groups of documents with the same content hash (spec §2.5)" },
    })
    .get("/documents/variants/:variant_id", ({ scope, params }) => getVariant(scope, params.variant_id), {
      params: variantParams,
      detail: { summary: "A variant: its chunking configuration, job status and embedding counts" },
    })
    .get("/documents/variants/:variant_id/chunks", ({ scope, params, query }) => listChunks(scope, params.variant_id, query), {
      params: variantParams,
      query: chunksQuery,
      detail: { summary: "A completed variant's chunks by chunk_index (spec §2.1, §2.2); 409 while it is processing" },
    })
    .get("/documents/variants/:variant_id/dedup-summary", ({ scope, params }) => dedupSummary(scope, params.variant_id), {
      params: variantParams,
      detail: { summary: "Deduplication against the parent version (spec §2.3) plus embeddings computed and reused" },
    })
    .get("/documents/:document_id", ({ scope, params }) => getDocument(scope, params.document_id), {
      params: documentParams,
      detail: { summary: "A document record with its version and variants" },
    })
    .delete("/documents/:document_id", ({ scope, params }) => deleteDocument(env, scope, params.document_id), {
      params: documentParams,
      detail: { summary: "Delete a document; a deleted canonical promotes its oldest duplicate" },
    })
    .get("/documents/:document_id/duplicates", ({ scope, params }) => documentDuplicates(scope, params.document_id), {
      params: documentParams,
      detail: { summary: "The document's duplicate group, canonical included (spec §2.4)" },
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
        detail: { summary: "Process the document with another chunking configuration (a new variant), or retry a failed one" },
      },
    );
};
