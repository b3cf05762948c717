/** Real embedders over the converted model in models/ (produced by `bun run convert-model`), in real inference pools. */
import { join } from "node:path";
import { configWith } from "../../src/config";
import type { Embedder } from "../../src/embeddings/embedder.ts";
import type { InferencePool } from "../../src/inference/pool.ts";
import { createInferencePool } from "../../src/server.ts";
import { backendUnderTest } from "../support/sieve.ts";

export const REPO_ROOT = join(import.meta.dir, "..", "..");
export const MODEL_DIR = join(REPO_ROOT, "models", "all-MiniLM-L6-v2");

const pools = new Map<string, InferencePool>();

/** One pool per backend per test process (two threads: the tests check ordering across workers too). */
export function pool(backend: "native" | "wasm" | "auto" = backendUnderTest()): InferencePool {
  let result = pools.get(backend);
  if (!result) {
    result = createInferencePool(configWith({ embedBackend: backend, inferenceThreads: 2 }));
    pools.set(backend, result);
  }
  return result;
}

/** The embedder for one precision, on the backend under test (SIEVE_EMBED_BACKEND, default auto). */
export function embedder(quantized: boolean, backend?: "native" | "wasm"): Promise<Embedder> {
  return pool(backend).loadModel({ modelDir: MODEL_DIR, quantized });
}

export function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}
