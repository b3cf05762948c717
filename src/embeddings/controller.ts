import { Elysia } from "elysia";
import type { AppContext } from "../runtime/context";
import { badRequest } from "../http/errors";
import { requestContextPlugin } from "../http/request-context";
import { describeZodIssues } from "../http/validation";
import { parseJsonBody } from "../http/json-body";
import { forwardPassthrough } from "../proxy/passthrough";
import { protectEmbeddingsInput } from "../data-protection/embeddings";
import { findWorkspace } from "../tenancy/service";
import { jsonResponse } from "../http/errors";
import { readRequestBody } from "../proxy/request";
import { generalModelName } from "../runtime/assets";
import { serviceKeyAuth } from "../tenancy/auth";
import { hasTokens } from "./model-text";
import { embeddingsAnswer, embeddingsBody, isLocalEmbeddingModel, LOCAL_EMBEDDING_MODEL } from "./model";
import { z } from "zod";
import { SERVICE_KEY_SECURITY } from "../docs/security";
import { blockedBody, errors, headers, json, jsonRequestContent, openaiErrorBody } from "../docs/responses";

/**
 * OpenAI-compatible POST /v1/embeddings. When `model` names the local model ("sieve-minilm";
 * the older "all-MiniLM-L6-v2" too) or is absent, Sieve answers with free local embeddings from
 * the model the firewall and cache use (384 dimensions; texts longer than 256 tokens are
 * truncated, as sentence-transformers does). Any other model is the provider's: the request is
 * passed through unchanged.
 */
export const embeddingsController = (ctx: AppContext) => {
  return new Elysia({ prefix: "/v1", detail: { tags: ["embeddings"], security: SERVICE_KEY_SECURITY } })
    .use(requestContextPlugin)
    .use(serviceKeyAuth(ctx))
    .post(
      "/embeddings",
      async ({ request, scope, requestId, receivedAt }) => {
        const text = await readRequestBody(request, ctx.config.maxBodyBytes);
        const json = parseJsonBody(text, ctx.config.maxJsonDepth);
        const model = (json as { model?: unknown } | null)?.model;
        if (!isLocalEmbeddingModel(model, generalModelName(ctx.config))) {
          // Leaving for the provider: data protection first (src/data-protection/embeddings.ts).
          const workspace = (await findWorkspace(ctx.database, scope.workspaceId))!;
          const protectedInput = await protectEmbeddingsInput(json, workspace.dataProtection, ctx.metrics.dataProtection);
          if (protectedInput.blocked) return jsonResponse(403, { error: "blocked_by_firewall", reason: protectedInput.blocked, request_id: requestId });
          return forwardPassthrough(request, protectedInput.body ?? text, { ctx, scope, requestId, receivedAt, model: typeof model === "string" ? model : undefined });
        }
        const parsed = embeddingsBody.safeParse(json);
        if (!parsed.success) throw badRequest(describeZodIssues("body", parsed.error.issues));
        const body = parsed.data;
        const inputs = typeof body.input === "string" ? [body.input] : body.input;
        const unreadable = inputs.findIndex((input) => !hasTokens(input));
        if (unreadable >= 0) {
          const field = typeof body.input === "string" ? "input" : `input[${unreadable}]`;
          throw badRequest(`${field}: ${inputs[unreadable]!.trim() ? "holds no character the model reads (only invisible, format or combining characters)" : "must not be empty"}`);
        }
        const embedder = ctx.embedder.require();
        if (body.dimensions !== undefined && body.dimensions !== embedder.dimensions) {
          throw badRequest(`dimensions: this model produces ${embedder.dimensions}-dimensional vectors`);
        }
        const vectors = await embedder.embedMany(inputs);
        const tokens = inputs.reduce((sum, input) => sum + Math.min(embedder.countTokens(input), 254) + 2, 0);
        return {
          object: "list",
          data: vectors.map((vector, index) => ({
            object: "embedding",
            index,
            embedding: body.encoding_format === "base64" ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64") : Array.from(vector),
          })),
          model: body.model ?? LOCAL_EMBEDDING_MODEL,
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        };
      },
      {
        parse: "none",
        detail: {
          summary: "Embeddings (local or provider)",
          description: `Local embeddings (model "${LOCAL_EMBEDDING_MODEL}" or no model: 384 dimensions, free, nothing leaves the server), or passed through to the provider for any other model after data protection checked the input.`,
          requestBody: {
            required: true,
            content: jsonRequestContent(embeddingsBody, {
              local: { summary: "Local model", value: { model: LOCAL_EMBEDDING_MODEL, input: ["first text", "second text"] } },
              provider: { summary: "The provider's model", value: { model: "text-embedding-3-small", input: "a text" } },
            }),
          } as never,
          responses: {
            200: { ...json("The vectors (a provider's answer is relayed as it came)", embeddingsAnswer), headers: headers({ "X-Service-Request-Id": "The request's id" }) },
            ...errors(
              "openai",
              [400, 401, 403, 413, 429, 502, 503, 504],
              { 403: "Data protection blocked the input (spec §2.9 body), or a key of another workspace (code forbidden)", 503: "The local model is still loading" },
              { 403: z.union([blockedBody, openaiErrorBody]) },
            ),
          },
        },
      },
    );
};
