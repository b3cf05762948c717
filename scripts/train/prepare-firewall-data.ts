/**
 * Step 1 of `npm run train:firewall`: turns the training rows into token ids for the Python
 * trainer (scripts/train/firewall_encoder.py), windowed exactly as the server windows a message
 * (planWindows without a budget: folded as the provider's model reads it, encoded payloads as
 * windows of their own, windows the encoder cannot read left out) and tokenised by the model's
 * own tokenizer, so the encoder learns on what it will see.
 *
 *   bun scripts/train/prepare-firewall-data.ts OUT.jsonl [--matched-pairs] [--project-data-only]
 *
 * Rows: the encoder's share of firewall-train-v2.jsonl and firewall-train.jsonl
 * (firewall-training-rows.ts; the calibration's fifth is kept out), the project-written examples
 * (scripts/fit/firewall-own-examples.ts, one source group per category) and the built-in input
 * patterns (as attacks of their family). Never firewall-dev.jsonl.
 * A long text keeps at most three windows (keptWindows in firewall-training-rows.ts: those with the
 * most attack cue words, plus one more for benign rows). An attack row is then trained as
 * attack-like as its most attack-like kept window (multiple instance).
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { Embedder } from "../../src/embeddings/embedder";
import { Readability } from "../../src/embeddings/readability";
import type { LabelledRow } from "../eval/firewall-data";
import { encoderDataRows, keptWindows, projectRows } from "./firewall-training-rows";

/** Token cap per window, [CLS] and [SEP] included: windows are ~32 estimated tokens, foreign scripts run longer. */
const MAX_TOKENS = 64;
export const MODEL_DIR = resolve(import.meta.dir, "../../models/all-MiniLM-L6-v2");

const out = process.argv[2];
if (!out) throw new Error("usage: bun scripts/train/prepare-firewall-data.ts OUT.jsonl");

const { encoder: data, calibration } = encoderDataRows();
const { own, patterns } = projectRows({ matchedPairs: process.argv.includes("--matched-pairs") });
// --project-data-only: no public row reaches the encoder (every public source stays unseen by it).
const rows: (LabelledRow & { pair?: number })[] = [...(process.argv.includes("--project-data-only") ? [] : data), ...own, ...patterns];

const readability = Readability.ofModel(MODEL_DIR);
const { tokenizer } = await Embedder.tokenizerFor(MODEL_DIR);
const ids = (text: string): number[] => {
  const all = [...tokenizer.encode(text).ids];
  return all.length <= MAX_TOKENS ? all : [...all.slice(0, MAX_TOKENS - 1), all.at(-1)!];
};

const lines: string[] = [];
let windowCount = 0;
for (const row of rows) {
  const windows = keptWindows(row, readability).map(ids).filter((w) => w.length > 2);
  if (windows.length === 0) continue;
  windowCount += windows.length;
  lines.push(JSON.stringify({ id: row.id, group: row.group, attack: row.attack ? 1 : 0, family: row.family, windows, ...(row.pair === undefined ? {} : { pair: row.pair }) }));
}
writeFileSync(out, `${lines.join("\n")}\n`);
const groups = new Map<string, number>();
for (const row of rows) groups.set(row.group, (groups.get(row.group) ?? 0) + 1);
console.error(`prepare: ${lines.length} rows, ${windowCount} windows → ${out} (training data ${data.length}, ${calibration.length} more kept out for the calibration; own ${own.length}, patterns ${patterns.length}; ${groups.size} source groups)`);
