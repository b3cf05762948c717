/**
 * One inference thread of the pool: its own ONNX Runtime session per model (one intra-op thread,
 * so N workers use N cores without contending), one run at a time. The pool's first worker also
 * holds a wide session per model (one intra-op thread per core) for a short text that runs while
 * nothing else does. Input is a token id sequence,
 * output the mean-pooled, L2-normalised vector, plus one per extra pooled output the model has
 * (mean_hidden_state_<layer>, the firewall's space): only 384 floats each cross back.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dlopen, FFIType, ptr } from "bun:ffi";
import type { InferenceSession, Tensor } from "onnxruntime-common";
import { l2Normalize, meanPoolNormalized } from "../embeddings/vectors.ts";
import type { Backend, BackendChoice, FromWorker, RuntimeFiles, ToWorker } from "./protocol.ts";

declare const self: Worker;

type Ort = { InferenceSession: typeof InferenceSession; Tensor: typeof Tensor };
type Loaded = { session: InferenceSession; wide: InferenceSession | undefined; dimensions: number; output: string; views: string[] };

/** Where the bundled onnxruntime-node's binding.js looks for the native binding inside the compiled binary (build.ts). */
const NATIVE_BINDING = Symbol.for("sieve.ortNativeBinding");

let ort: Ort | undefined;
let backend: Backend = "native";
const models = new Map<number, Loaded>();
const reply = (message: FromWorker) => self.postMessage(message);

async function loadNative(files: RuntimeFiles): Promise<Ort> {
  disableNativeTelemetry();
  if (files.nativeBinding) {
    // Loading it here first makes a missing or broken library fail with its own path in the message.
    createRequire(import.meta.url)(files.nativeBinding);
    (globalThis as Record<symbol, unknown>)[NATIVE_BINDING] = files.nativeBinding;
  }
  return (await import("onnxruntime-node")) as unknown as Ort;
}

/**
 * Native ONNX Runtime 1.30 keeps a device id under ~/.cache and uploads usage telemetry over HTTPS
 * unless ORT_DISABLE_TELEMETRY is in the C environment when it loads; Sieve talks to nobody but its
 * provider. Bun's process.env does not reach the C environment, so libc's setenv does it.
 */
function disableNativeTelemetry(): void {
  if (process.platform === "win32") return;
  const libc = dlopen(process.platform === "darwin" ? "libc.dylib" : "libc.so.6", { setenv: { args: [FFIType.cstring, FFIType.cstring, FFIType.i32], returns: FFIType.i32 } });
  const text = (value: string) => ptr(new TextEncoder().encode(`${value}\0`));
  libc.symbols.setenv(text("ORT_DISABLE_TELEMETRY"), text("1"), 1);
  libc.close();
}

async function loadWasm(files: RuntimeFiles): Promise<Ort> {
  const web = await import("onnxruntime-web");
  // Local files only (never a CDN); the bytes are handed over because the binary's embedded files cannot be fetched.
  web.env.wasm.wasmPaths = { mjs: files.wasmMjs, wasm: files.wasm };
  web.env.wasm.wasmBinary = readFileSync(files.wasm);
  // ORT's own WASM threads spin-wait: with other work on the machine they cost more than they give.
  web.env.wasm.numThreads = 1;
  return web as unknown as Ort;
}

async function init(choice: BackendChoice, files: RuntimeFiles): Promise<void> {
  backend = choice === "wasm" ? "wasm" : "native";
  let fallback: string | undefined;
  try {
    ort = backend === "native" ? await loadNative(files) : await loadWasm(files);
  } catch (error) {
    if (choice !== "auto") throw error;
    fallback = `native ONNX Runtime did not load: ${(error as Error).message}`;
    backend = "wasm";
    ort = await loadWasm(files);
  }
  reply({ type: "ready", backend, fallback });
}

async function load(model: number, onnxPath: string, wideThreads: number): Promise<void> {
  // Bytes, not a path: native ORT cannot open a file inside the compiled binary's embedded file system.
  const bytes = readFileSync(onnxPath);
  // `extra` must be an object when given (onnxruntime-node rejects undefined).
  const create = (intraOpNumThreads: number, extra: Record<string, unknown> = {}) =>
    ort!.InferenceSession.create(bytes, { executionProviders: [backend === "native" ? "cpu" : "wasm"], intraOpNumThreads, interOpNumThreads: 1, executionMode: "sequential", extra });
  const session = await create(1);
  // WASM runs one thread whatever is asked (see loadWasm). The wide session's helper threads spin
  // between the parts of a run (that is its speed) but not after it: by default they spun on for
  // milliseconds, taking the core the other worker and the event loop then needed (a 16-token run
  // every 3 ms: 7–8 ms of CPU each instead of 3.8, the same run time).
  const wide = wideThreads > 1 && backend === "native" ? await create(wideThreads, { session: { force_spinning_stop: "1" } }) : undefined;
  const output = session.outputNames.includes("last_hidden_state") ? "last_hidden_state" : session.outputNames[0]!;
  const dimensions = dimensionsOf(session, output);
  const views = session.outputNames.filter((name) => name.startsWith("mean_hidden_state_"));
  models.set(model, { session, wide, dimensions, output, views });
  reply({ type: "loaded", model, dimensions, views });
}

function dimensionsOf(session: InferenceSession, output: string): number {
  const meta = session.outputMetadata.find((m) => m.name === output);
  const shape = meta && meta.isTensor ? meta.shape : [];
  const last = shape.at(-1);
  if (typeof last !== "number") throw new Error(`output ${output} has no fixed hidden size`);
  return last;
}

async function run(model: number, ids: Int32Array, wide: boolean): Promise<void> {
  const loaded = models.get(model);
  if (!loaded) throw new Error(`model ${model} is not loaded in this worker`);
  const { Tensor } = ort!;
  const length = ids.length;
  const dims = [1, length];
  const inputs: Record<string, Tensor> = {
    input_ids: new Tensor("int64", BigInt64Array.from(ids, (id) => BigInt(id)), dims),
    attention_mask: new Tensor("int64", new BigInt64Array(length).fill(1n), dims),
    token_type_ids: new Tensor("int64", new BigInt64Array(length), dims),
  };
  const feeds = Object.fromEntries(loaded.session.inputNames.map((name) => [name, inputs[name]!]));
  // Both sessions give bit-identical vectors (test/inference/pool.test.ts checks every fixed text), so the mode never changes an answer.
  const session = (wide && loaded.wide) || loaded.session;
  const result = await session.run(feeds, [loaded.output, ...loaded.views]);
  const hidden = result[loaded.output]!;
  const vectors = [meanPoolNormalized(hidden.data as Float32Array, length, loaded.dimensions, 0, length)];
  for (const view of loaded.views) vectors.push(l2Normalize(Float32Array.from(result[view]!.data as Float32Array)));
  for (const tensor of Object.values(result)) tensor.dispose();
  self.postMessage({ type: "vectors", vectors } satisfies FromWorker, vectors.map((v) => v.buffer as ArrayBuffer));
}

// One message at a time, in arrival order: a run never overlaps a model load.
let tail: Promise<void> = Promise.resolve();
self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  tail = tail.then(async () => {
    try {
      if (message.type === "init") await init(message.backend, message.files);
      else if (message.type === "load") await load(message.model, message.onnxPath, message.wideThreads);
      else await run(message.model, message.ids, message.wide);
    } catch (error) {
      const text = (error as Error).message ?? String(error);
      if (message.type === "init") reply({ type: "init-failed", error: text });
      else if (message.type === "load") reply({ type: "load-failed", model: message.model, error: text });
      else reply({ type: "run-failed", error: text });
    }
  });
};
