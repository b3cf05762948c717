/** Checks a local model folder before the inference pool loads it, so failures name the exact file. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EmbedderLoadError } from "./errors.ts";

export function onnxFile(quantized: boolean): string {
  return quantized ? "onnx/model_quantized.onnx" : "onnx/model.onnx";
}

/** `makeWith`: the command that builds such a folder, named in the error. */
export function checkModelFolder(modelDir: string, quantized: boolean, makeWith = "bun run convert-model"): void {
  if (!existsSync(modelDir)) {
    throw new EmbedderLoadError(`model folder not found: ${modelDir} (run \`${makeWith}\`)`);
  }
  for (const file of ["config.json", "tokenizer.json", "tokenizer_config.json", onnxFile(quantized)]) {
    const path = join(modelDir, file);
    if (!existsSync(path)) throw new EmbedderLoadError(`model file missing: ${path} (run \`${makeWith}\`)`);
    if (file.endsWith(".json")) {
      try {
        JSON.parse(readFileSync(path, "utf8"));
      } catch (error) {
        throw new EmbedderLoadError(`model file corrupt: ${path}: ${(error as Error).message}`);
      }
    }
  }
}
