/**
 * Embedding benchmark: native ONNX Runtime vs its WASM build side by side, int8 and fp32, on one
 * inference thread and on one per core. Single-text latency runs one text at a time (what a
 * fresh prompt costs; on a native pool of several threads a short text then runs alone on the
 * wide session, every core); batches run through the whole pool (what a document costs). Each
 * configuration runs in its own child process so load time and peak RSS are not mixed up; the
 * parent prints a markdown table and the native/WASM ratios measured in the same run.
 *
 *   bun scripts/bench/embed.ts                                                # all configurations, table
 *   bun scripts/bench/embed.ts --backend native --precision int8 --threads 1  # one configuration, JSON (used by the parent)
 */
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { availableParallelism } from "node:os";
import { configWith } from "../../src/config/index.ts";
import { createInferencePool } from "../../src/server.ts";
import { textOfTokens } from "./texts.ts";

const MODEL_DIR = join(import.meta.dir, "..", "..", "models", "all-MiniLM-L6-v2");
// Sequence lengths include [CLS] and [SEP].
const SINGLE_LENGTHS = [16, 64, 256];
const BATCH_SIZES = [16, 32];
const BATCH_TEXT_TOKENS = 64;

const CORES = availableParallelism();
const CONFIGURATIONS = (["native", "wasm"] as const).flatMap((backend) => [
  { backend, precision: "fp32", threads: 1 },
  { backend, precision: "int8", threads: 1 },
  { backend, precision: "int8", threads: CORES },
]);

type Backend = "native" | "wasm";
type Result = {
  backend: Backend;
  precision: string;
  threads: number;
  loadMs: number;
  /** Wall-clock percentiles, plus median CPU time, which other processes on the box do not inflate. */
  single: Record<number, { p50: number; p95: number; cpuP50: number }>;
  batch: Record<number, { perSecond: number; perCpuSecond: number }>;
  peakRssMb: number;
};

const { values: args } = parseArgs({ options: { backend: { type: "string" }, precision: { type: "string" }, threads: { type: "string" } } });
if (args.precision) {
  console.log(JSON.stringify(await measure((args.backend ?? "native") as Backend, args.precision, Number(args.threads ?? 1))));
} else {
  const loadBefore = loadavg()[0];
  const results: Result[] = [];
  // One at a time: parallel children would compete for the cores.
  for (const { backend, precision, threads } of CONFIGURATIONS) results.push(await runChild(backend, precision, threads));
  printTable(results);
  printRatios(results);
  console.log(`\n${cpus().length} cores; 1-min load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after.`);
}

async function measure(backend: Backend, precision: string, threads: number): Promise<Result> {
  const started = performance.now();
  const pool = createInferencePool(configWith({ embedBackend: backend, inferenceThreads: threads }));
  const embedder = await pool.loadModel({ modelDir: MODEL_DIR, quantized: precision === "int8" });
  const loadMs = performance.now() - started;
  const count = (text: string) => embedder.countTokens(text);

  const single: Result["single"] = {};
  for (const length of SINGLE_LENGTHS) {
    const text = textOfTokens(length - 2, count);
    const runs = length >= 256 ? 30 : 60;
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < runs + 5; i++) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await embedder.embed(text);
      if (i < 5) continue; // the first runs warm up the runtime
      wall.push(performance.now() - t0);
      const used = process.cpuUsage(cpu0);
      cpu.push((used.user + used.system) / 1000);
    }
    single[length] = { p50: percentile(wall, 0.5), p95: percentile(wall, 0.95), cpuP50: percentile(cpu, 0.5) };
  }

  const batch: Result["batch"] = {};
  for (const size of BATCH_SIZES) {
    const texts = Array.from({ length: size }, (_, i) => textOfTokens(BATCH_TEXT_TOKENS - 2, count, i * 7));
    await embedder.embedMany(texts);
    const rounds = 5;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < rounds; i++) await embedder.embedMany(texts);
    const cpu = process.cpuUsage(cpu0);
    batch[size] = {
      perSecond: (size * rounds) / ((performance.now() - t0) / 1000),
      perCpuSecond: (size * rounds) / ((cpu.user + cpu.system) / 1e6),
    };
  }
  await pool.stop();
  return { backend, precision, threads, loadMs, single, batch, peakRssMb: process.resourceUsage().maxRSS / 1024 };
}

async function runChild(backend: Backend, precision: string, threads: number): Promise<Result> {
  const child = Bun.spawn([process.execPath, import.meta.path, "--backend", backend, "--precision", precision, "--threads", String(threads)], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const [output, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0) throw new Error(`benchmark child for ${backend} ${precision} (${threads} threads) failed`);
  return JSON.parse(output.trim().split("\n").pop()!) as Result;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

function printTable(results: Result[]): void {
  const ms = (n: number) => n.toFixed(1);
  const header = [
    "backend",
    "model",
    "threads",
    "load ms",
    ...SINGLE_LENGTHS.map((l) => `${l} tok p50 / p95 (CPU p50) ms`),
    ...BATCH_SIZES.map((b) => `batch ${b}×${BATCH_TEXT_TOKENS} tok texts/s (per CPU s)`),
    "peak RSS MB",
  ];
  console.log(`| ${header.join(" | ")} |`);
  console.log(`|${header.map(() => "---").join("|")}|`);
  for (const r of results) {
    const cells = [
      r.backend,
      r.precision,
      String(r.threads),
      ms(r.loadMs),
      ...SINGLE_LENGTHS.map((l) => `${ms(r.single[l].p50)} / ${ms(r.single[l].p95)} (${ms(r.single[l].cpuP50)})`),
      ...BATCH_SIZES.map((b) => `${r.batch[b].perSecond.toFixed(0)} (${r.batch[b].perCpuSecond.toFixed(0)})`),
      r.peakRssMb.toFixed(0),
    ];
    console.log(`| ${cells.join(" | ")} |`);
  }
}

/** How many times faster native is than WASM for the same precision and threads, from this run. */
function printRatios(results: Result[]): void {
  console.log("\nNative speed-up over WASM (same run; single texts by p50, batches by texts/s):");
  for (const native of results.filter((r) => r.backend === "native")) {
    const wasm = results.find((r) => r.backend === "wasm" && r.precision === native.precision && r.threads === native.threads);
    if (!wasm) continue;
    const single = SINGLE_LENGTHS.map((l) => `${l} tok ×${(wasm.single[l].p50 / native.single[l].p50).toFixed(1)}`);
    const batch = BATCH_SIZES.map((b) => `batch ${b} ×${(native.batch[b].perSecond / wasm.batch[b].perSecond).toFixed(1)}`);
    console.log(`- ${native.precision}, ${native.threads} thread(s): ${[...single, ...batch].join(", ")}`);
  }
}
