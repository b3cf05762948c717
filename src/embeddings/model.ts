import { z } from "zod";

/** Largest number of inputs in one /v1/embeddings call. */
export const MAX_EMBEDDING_INPUTS = 256;

export const embeddingsBody = z.object({
  input: z.union([z.string(), z.array(z.string()).min(1, "must not be empty").max(MAX_EMBEDDING_INPUTS)]),
  model: z.string().optional(),
  encoding_format: z.enum(["float", "base64"]).optional(),
  dimensions: z.number().int().positive().optional(),
  user: z.string().optional(),
});
