import { z } from "zod";

/** Largest number of inputs in one /v1/embeddings call. */
export const MAX_EMBEDDING_INPUTS = 256;

/** The name that asks /v1/embeddings for the local model; any other name goes to the provider. */
export const LOCAL_EMBEDDING_MODEL = "sieve-minilm";
/** Names the local model answered to before it had its own (kept working). */
const LOCAL_MODEL_ALIASES = new Set([LOCAL_EMBEDDING_MODEL, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"]);

/** Whether a /v1/embeddings request is for the local model: its names, the running model's own name, or no model at all. */
export function isLocalEmbeddingModel(model: unknown, runningModel: string | undefined): boolean {
  return model === undefined || (typeof model === "string" && (LOCAL_MODEL_ALIASES.has(model) || model === runningModel));
}

export const embeddingsBody = z.object({
  input: z.union([z.string(), z.array(z.string()).min(1, "must not be empty").max(MAX_EMBEDDING_INPUTS)]),
  model: z.string().optional(),
  encoding_format: z.enum(["float", "base64"]).optional(),
  dimensions: z.number().int().positive().optional(),
  user: z.string().optional(),
});

/** The local model's answer (OpenAI's embeddings list); a provider's answer is relayed as it came. */
export const embeddingsAnswer = z.object({
  object: z.literal("list"),
  data: z.array(z.object({ object: z.literal("embedding"), index: z.int(), embedding: z.union([z.array(z.number()), z.string().describe("base64 of little-endian float32")]) })),
  model: z.string(),
  usage: z.object({ prompt_tokens: z.int(), total_tokens: z.int() }),
});
