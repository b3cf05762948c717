/** Real embedders over the converted model in models/ (produced by `bun run convert-model`). */
import { join } from "node:path";
import { Embedder } from "../../src/embeddings/embedder.ts";

export const REPO_ROOT = join(import.meta.dir, "..", "..");
export const MODEL_DIR = join(REPO_ROOT, "models", "all-MiniLM-L6-v2");

const loaded = new Map<boolean, Promise<Embedder>>();

/** One embedder per precision per test process: loading takes about a second. */
export function embedder(quantized: boolean): Promise<Embedder> {
  let result = loaded.get(quantized);
  if (!result) {
    result = Embedder.load({ modelDir: MODEL_DIR, quantized });
    loaded.set(quantized, result);
  }
  return result;
}

export function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}
