/**
 * Loads transformers.js wired to onnxruntime-web's WASM backend, fully offline.
 *
 * Under Bun, transformers.js picks its Node build, whose own backend (onnxruntime-node) is a native
 * addon Sieve does not ship. transformers.js adopts whatever runtime sits at
 * globalThis[Symbol.for("onnxruntime")] when it is first imported, so onnxruntime-web must be put
 * there before that import: hence the dynamic imports, and nothing else in Sieve may import
 * @huggingface/transformers directly.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The ONNX Runtime WASM build (ort-wasm-simd-threaded.{mjs,wasm}); wasmBinary saves reading wasmPath. */
export type WasmFiles = { mjsPath: string; wasmPath: string; wasmBinary?: Uint8Array };

export type RuntimeOptions = { wasm?: WasmFiles; threads?: number };

type Transformers = typeof import("@huggingface/transformers");

let runtime: Promise<Transformers> | undefined;

/** The ONNX runtime and transformers.js env are process-wide: the first caller's options win. */
export function loadRuntime(options: RuntimeOptions = {}): Promise<Transformers> {
  runtime ??= configure(options.wasm ?? defaultWasmFiles(), options.threads ?? 1);
  return runtime;
}

/** In development the WASM runtime comes straight from the installed onnxruntime-web package. */
export function defaultWasmFiles(): WasmFiles {
  const dist = dirname(fileURLToPath(import.meta.resolve("onnxruntime-web")));
  return {
    mjsPath: join(dist, "ort-wasm-simd-threaded.mjs"),
    wasmPath: join(dist, "ort-wasm-simd-threaded.wasm"),
  };
}

async function configure(wasm: WasmFiles, threads: number): Promise<Transformers> {
  const ort = await import("onnxruntime-web");
  (globalThis as Record<symbol, unknown>)[Symbol.for("onnxruntime")] = ort;
  const transformers = await import("@huggingface/transformers");
  const { env } = transformers;
  if (!env.backends.onnx.versions?.web) {
    throw new Error("@huggingface/transformers was imported before src/embeddings/runtime.ts installed onnxruntime-web");
  }

  const wasmEnv = env.backends.onnx.wasm!;
  // Local files only: transformers.js otherwise points ORT at a CDN copy of these files.
  wasmEnv.wasmPaths = { mjs: wasm.mjsPath, wasm: wasm.wasmPath };
  if (wasm.wasmBinary) wasmEnv.wasmBinary = wasm.wasmBinary;
  // Two threads run ~1.7x faster on an idle 2-core box but several times slower when another
  // process holds a core (ORT's workers spin-wait), so one is the safe default.
  wasmEnv.numThreads = threads;
  // With object-valued wasmPaths, the WASM cache would try to fetch() those paths as URLs.
  env.useWasmCache = false;
  env.allowLocalModels = true;
  env.allowRemoteModels = false;
  return transformers;
}
