/** Messages between the inference pool (main thread) and its worker threads. */

/** Which ONNX Runtime a worker runs: the native library (onnxruntime-node) or its WASM build (onnxruntime-web). */
export type Backend = "native" | "wasm";
export type BackendChoice = Backend | "auto";

/** Where each runtime's files are: in development the installed packages, in the binary extracted/embedded copies. */
export type RuntimeFiles = {
  /** onnxruntime_binding.node (beside libonnxruntime); undefined: resolve the onnxruntime-node package. */
  nativeBinding?: string;
  /** The ONNX Runtime WASM glue module and binary (ort-wasm-simd-threaded.{mjs,wasm}). */
  wasmMjs: string;
  wasm: string;
};

/** A worker gets one run at a time: a reply always answers the run it was last sent. */
export type ToWorker =
  | { type: "init"; backend: BackendChoice; files: RuntimeFiles }
  /** wideThreads > 1: also a session with that many intra-op threads, for a text that runs alone (see InferencePool). */
  | { type: "load"; model: number; onnxPath: string; wideThreads: number }
  | { type: "run"; model: number; ids: Int32Array; wide: boolean };

export type FromWorker =
  | { type: "ready"; backend: Backend; fallback?: string }
  | { type: "init-failed"; error: string }
  /** views: the model's extra pooled outputs (e.g. mean_hidden_state_4), returned after the main vector by every run. */
  | { type: "loaded"; model: number; dimensions: number; views: string[] }
  | { type: "load-failed"; model: number; error: string }
  /** The main (mean-pooled last layer) vector first, then one per view; all L2-normalised. */
  | { type: "vectors"; vectors: Float32Array[] }
  | { type: "run-failed"; error: string };
