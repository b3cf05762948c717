import { basename, join, resolve } from "node:path";

/**
 * Files Sieve needs besides its code. In development they come from the repository and
 * node_modules; in the compiled binary build.ts registers the embedded copies before main runs.
 */
export type AssetPaths = {
  /** sqlite-vec loadable extension (vec0.so). */
  vecExtension: string;
  /** Folder holding drizzle's migration journal and SQL files. */
  migrationsDir: string;
  /** Default embedding model folder (transformers.js layout). */
  modelDir: string;
  /** onnxruntime-web WASM glue module and binary. */
  ortWasmMjs: string;
  ortWasm: string;
  /**
   * Native ONNX Runtime binding (beside libonnxruntime) extracted from the binary, on first call
   * only: admin commands and the WASM backend never copy the ~20 MB out. Undefined: the
   * onnxruntime-node package resolves it.
   */
  ortNativeBinding?: () => string;
  /** The inference worker's entry point when it is not src/inference/worker.ts beside the pool (the binary's embedded copy). */
  inferenceWorker?: string;
  /** The document parser's worker entry point when it is not src/documents/parsing/parser-worker.ts (the binary's embedded copy). */
  parserWorker?: string;
  /** Tesseract's engine (tesseract.js-core, LSTM-only SIMD build) and the folder of the language data that ships (English). */
  ocrCoreWasm: string;
  ocrLanguageDir: string;
  /** Scalar API reference standalone browser script for the /openapi page. */
  docsUiScript: string;
  /** True when these paths point into the binary's embedded file system. */
  embedded: boolean;
};

const EMBEDDED_ASSETS = Symbol.for("sieve.embeddedAssets");

export function registerEmbeddedAssets(paths: Omit<AssetPaths, "embedded">): void {
  (globalThis as Record<symbol, unknown>)[EMBEDDED_ASSETS] = { ...paths, embedded: true };
}

export const DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2";

/** The general model's name (its folder's name), from the configuration alone: known before the model has loaded. */
export function generalModelName(config: { modelDir: string | undefined }): string {
  return config.modelDir ? basename(config.modelDir) : DEFAULT_MODEL_NAME;
}

/** Which vectors the general model makes: vectors of another model or precision are not comparable. */
export function generalVectorSpace(config: { modelDir: string | undefined; embedPrecision: string }): string {
  return `${generalModelName(config)}/${config.embedPrecision}`;
}

export function assetPaths(): AssetPaths {
  const embedded = (globalThis as Record<symbol, unknown>)[EMBEDDED_ASSETS] as AssetPaths | undefined;
  if (embedded) return embedded;
  const root = resolve(import.meta.dir, "../..");
  const modules = join(root, "node_modules");
  return {
    vecExtension: join(modules, `sqlite-vec-${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`, `vec0.${process.platform === "darwin" ? "dylib" : process.platform === "win32" ? "dll" : "so"}`),
    migrationsDir: join(root, "migrations"),
    modelDir: join(root, "models", DEFAULT_MODEL_NAME),
    ortWasmMjs: join(modules, "onnxruntime-web", "dist", "ort-wasm-simd-threaded.mjs"),
    ortWasm: join(modules, "onnxruntime-web", "dist", "ort-wasm-simd-threaded.wasm"),
    ocrCoreWasm: join(modules, "tesseract.js-core", "tesseract-core-simd-lstm.wasm"),
    ocrLanguageDir: join(modules, "@tesseract.js-data", "eng", "4.0.0_best_int"),
    docsUiScript: join(modules, "@scalar", "api-reference", "dist", "browser", "standalone.js"),
    embedded: false,
  };
}
