/**
 * `bun run bench:embed-batching`: would running several request-path texts as one batch pay?
 * (issue #24's third lever). The shipped int8 graph quantises each layer's input with one range
 * for the whole input (fused DynamicQuantizeLinear + MatMulIntegerToFloat), so it runs texts alone:
 * in a batch, one text's range would change another's vector. A graph that gives every text the
 * vector it gets alone needs a range per text or finer; this bench builds the finest such graph
 * from the same weights, one scale per token everywhere (linear.ts, int8PerTokenDense: plain ops,
 * no fused kernel; a scale per batch row needs the same ops plus a zero-point correction), and
 * times, on one intra-op thread as a pool worker runs, each graph at batch sizes 1–8:
 * - shipped graph, batch 1: what a request-path text costs today;
 * - shipped graph, batch N: the upper bound batching could reach (not usable: vectors would move);
 * - per-token graph, batch N: what batching with unchanged vectors would cost per text.
 * Rounds alternate the graphs so machine noise hits both. Unpadded, equal-length texts: the best
 * case for batching (real batches pad to their longest text).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { buildBertOnnx } from "../model/bert-graph.ts";
import { DEFAULT_SOURCE_DIR, readSourceModel } from "../model/convert.ts";
import { int8PerTokenDense } from "../model/linear.ts";
import { markdownTable, ms, summarize } from "./stats.ts";

const ROOT = join(import.meta.dir, "..", "..");
const LENGTHS = [16, 24, 48];
const BATCHES = [1, 2, 4, 8];
const ROUNDS = 3;
const RUNS = 100;

const { config, tensors } = readSourceModel(DEFAULT_SOURCE_DIR);
const perToken = buildBertOnnx(config, tensors, {
  dense: int8PerTokenDense,
  geluOutputDense: int8PerTokenDense,
  int8WordEmbeddings: true,
});
const open = (bytes: Uint8Array) => ort.InferenceSession.create(bytes, { executionProviders: ["cpu"], intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential" });
const graphs = {
  shipped: await open(readFileSync(join(ROOT, "models", "all-MiniLM-L6-v2", "onnx", "model_quantized.onnx"))),
  "per-token": await open(perToken),
};

/** Milliseconds per run of `batch` texts of `length` tokens. */
async function time(session: ort.InferenceSession, batch: number, length: number): Promise<number[]> {
  const count = batch * length;
  const ids = BigInt64Array.from({ length: count }, (_, i) => BigInt(1000 + ((i * 37) % 20000)));
  const dims = [batch, length];
  const feeds = {
    input_ids: new ort.Tensor("int64", ids, dims),
    attention_mask: new ort.Tensor("int64", new BigInt64Array(count).fill(1n), dims),
    token_type_ids: new ort.Tensor("int64", new BigInt64Array(count), dims),
  };
  for (let i = 0; i < 10; i++) await session.run(feeds);
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await session.run(feeds);
    samples.push(performance.now() - started);
  }
  return samples;
}

const samples = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const length of LENGTHS) {
    for (const batch of BATCHES) {
      for (const [name, session] of Object.entries(graphs)) {
        const key = `${name}|${length}|${batch}`;
        samples.set(key, [...(samples.get(key) ?? []), ...(await time(session, batch, length))]);
      }
    }
  }
}

const perText = (name: string, length: number, batch: number) => summarize(samples.get(`${name}|${length}|${batch}`)!).p50 / batch;
const rows = LENGTHS.flatMap((length) =>
  BATCHES.map((batch) => {
    const alone = perText("shipped", length, 1);
    const shipped = perText("shipped", length, batch);
    const safe = perText("per-token", length, batch);
    return [length, batch, ms(shipped), ms(safe), `${(safe / alone).toFixed(2)}×`];
  }),
);
console.log(`p50 ms per text, one intra-op thread, ${ROUNDS} rounds of ${RUNS} runs per cell\n`);
console.log(markdownTable(["tokens", "batch", "shipped graph (vectors move when batch > 1)", "per-token graph (vectors unchanged)", "per-token batched / shipped alone"], rows));
