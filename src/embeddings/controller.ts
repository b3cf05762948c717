import { Elysia } from "elysia";
import type { AppContext } from "../runtime/context";
import { badRequest } from "../http/errors";
import { serviceKeyAuth } from "../tenancy/auth";
import { embeddingsBody } from "./model";

/**
 * OpenAI-compatible POST /v1/embeddings: free local embeddings from the same model the
 * firewall and cache use. Texts longer than 256 tokens are truncated, as sentence-transformers does.
 */
export const embeddingsController = (ctx: AppContext) =>
  new Elysia({ prefix: "/v1", detail: { tags: ["embeddings"] } }).use(serviceKeyAuth(ctx)).post(
    "/embeddings",
    async ({ body }) => {
      const inputs = typeof body.input === "string" ? [body.input] : body.input;
      const blank = inputs.findIndex((text) => !text.trim());
      if (blank >= 0) throw badRequest(typeof body.input === "string" ? "input: must not be empty" : `input[${blank}]: must not be empty`);
      const embedder = ctx.embedder.require();
      if (body.dimensions !== undefined && body.dimensions !== embedder.dimensions) {
        throw badRequest(`dimensions: this model produces ${embedder.dimensions}-dimensional vectors`);
      }
      const vectors = await embedder.embedMany(inputs);
      const tokens = inputs.reduce((sum, text) => sum + Math.min(embedder.countTokens(text), 254) + 2, 0);
      return {
        object: "list",
        data: vectors.map((vector, index) => ({
          object: "embedding",
          index,
          embedding: body.encoding_format === "base64" ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64") : Array.from(vector),
        })),
        model: embedder.modelName,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      };
    },
    { body: embeddingsBody, detail: { summary: "OpenAI-compatible local embeddings (all-MiniLM-L6-v2, 384 dimensions)" } },
  );
