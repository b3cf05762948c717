import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Embedder } from "../../src/embeddings/embedder.ts";
import { VectorMemo } from "../../src/embeddings/vector-memo.ts";
import { InferencePool } from "../../src/inference/pool.ts";
import { assetPaths } from "../../src/runtime/assets.ts";
import { embedder, maxAbsDiff, MODEL_DIR } from "./shared.ts";

setDefaultTimeout(120_000);

/** The real embedder, with its calls counted. */
function counted(real: Embedder): { embedder: Embedder; calls: string[][] } {
  const calls: string[][] = [];
  const embedder = Object.create(real) as Embedder;
  embedder.embedMany = (texts, options) => {
    calls.push(texts);
    return real.embedMany(texts, options);
  };
  return { embedder, calls };
}

const stopped: InferencePool[] = [];
afterAll(() => Promise.all(stopped.map((p) => p.stop())));

describe("the vector memo", () => {
  test("texts being embedded are not embedded again by a second caller; other workspaces embed their own", async () => {
    const { embedder: e, calls } = counted(await embedder(true));
    const memo = new VectorMemo(() => e);
    const [a, b, c] = await Promise.all([
      memo.embedMany(["Is this prompt safe?", "hello"], "w1"),
      memo.embed("Is this prompt safe?", "w1"),
      memo.embed("Is this prompt safe?", "w2"),
    ]);
    expect(calls).toEqual([["Is this prompt safe?", "hello"], ["Is this prompt safe?"]]);
    expect(maxAbsDiff(a[0]!, b)).toBe(0);
    expect(maxAbsDiff(b, c)).toBe(0);
    expect(memo.peek("hello", "w1")).toBe(a[1]!);
    expect(memo.peek("hello", "w2")).toBeUndefined();
  });

  test("a failed inference fails every caller waiting on it and is tried again by the next", async () => {
    const pool = new InferencePool({ threads: 1, files: { wasmMjs: assetPaths().ortWasmMjs, wasm: assetPaths().ortWasm } });
    stopped.push(pool);
    const { embedder: e, calls } = counted(await pool.loadModel({ modelDir: MODEL_DIR, quantized: true }));
    await pool.stop(); // every run is now refused
    const memo = new VectorMemo(() => e);
    const results = await Promise.allSettled([memo.embed("after stop", "w1"), memo.embed("after stop", "w1")]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(calls).toHaveLength(1);
    await expect(memo.embed("after stop", "w1")).rejects.toThrow(/stopped/);
    expect(calls).toHaveLength(2);
  });
});
