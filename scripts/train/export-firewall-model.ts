/**
 * Step 3 of `npm run train:firewall`: the fine-tuned weights (fp16 safetensors, the tensor names
 * of the packaged MiniLM) go through the project's own converter (scripts/model/convert.ts: BERT
 * graph, int8 weights) and the int8 model lands in a transformers.js folder under models/, with a
 * model card recording data, seed, commit and settings. Only the int8 ONNX is kept (~23 MB): the
 * firewall always runs quantised.
 *
 *   bun scripts/train/export-firewall-model.ts TRAINED_DIR OUT_DIR
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { convertModel } from "../model/convert";
import { modelCard, type TrainingRecord } from "./model-card";

export const KEPT_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model_quantized.onnx"] as const;

export function exportFirewallModel(trainedDir: string, outDir: string, record: Omit<TrainingRecord, "training">): void {
  const converted = mkdtempSync(join(tmpdir(), "sieve-firewall-export-"));
  try {
    convertModel({ sourceDir: trainedDir, outDir: converted, force: true });
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(join(outDir, "onnx"), { recursive: true });
    for (const file of KEPT_FILES) copyFileSync(join(converted, file), join(outDir, file));
  } finally {
    rmSync(converted, { recursive: true, force: true });
  }
  copyFileSync(join(trainedDir, "training.json"), join(outDir, "training.json")); // settings, loss curve, head weights
  const training = JSON.parse(readFileSync(join(trainedDir, "training.json"), "utf8"));
  writeFileSync(join(outDir, "MODEL_CARD.md"), modelCard({ ...record, training }));
}

if (import.meta.main) {
  const [trainedDir, outDir] = process.argv.slice(2);
  if (!trainedDir || !outDir) throw new Error("usage: bun scripts/train/export-firewall-model.ts TRAINED_DIR OUT_DIR");
  exportFirewallModel(trainedDir, outDir, { commit: "(exported by hand)", command: `\`bun scripts/train/export-firewall-model.ts ${trainedDir} ${outDir}\`` });
  console.error(`export: wrote ${outDir}`);
}
