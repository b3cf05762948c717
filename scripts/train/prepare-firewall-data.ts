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
 * A long text keeps at most WINDOWS_PER_ROW windows: those with the most attack cue words (where
 * an injection hides), plus, for benign rows, one more chosen by a hash of the text. An attack row
 * is then trained as attack-like as its most attack-like kept window (multiple instance).
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { Embedder } from "../../src/embeddings/embedder";
import { cueScore } from "../../src/firewall/cues";
import { BUILTIN_PATTERNS } from "../../src/firewall/library";
import { planWindows } from "../../src/firewall/scan";
import { WINDOW_TOKENS } from "../../src/firewall/windows";
import { Readability } from "../../src/embeddings/readability";
import type { LabelledRow } from "../eval/firewall-data";
import { OWN_GROUP, ownExamples } from "../fit/firewall-own-examples";
import { encoderDataRows } from "./firewall-training-rows";

const WINDOWS_PER_ROW = 3;
/** Token cap per window, [CLS] and [SEP] included: windows are ~32 estimated tokens, foreign scripts run longer. */
const MAX_TOKENS = 64;
export const MODEL_DIR = resolve(import.meta.dir, "../../models/all-MiniLM-L6-v2");

const out = process.argv[2];
if (!out) throw new Error("usage: bun scripts/train/prepare-firewall-data.ts OUT.jsonl");

const { encoder: data, calibration } = encoderDataRows();
// A matched pair's two rows carry its index, for the trainer's pair term (firewall_encoder.py --pair-batch).
const own: (LabelledRow & { pair?: number })[] = ownExamples({ matchedPairs: process.argv.includes("--matched-pairs") }).map((e, i) => ({ id: `own-${i}`, text: e.text, attack: e.attack, family: null, source: OWN_GROUP, group: `${OWN_GROUP}: ${e.category}`, pair: e.pair }));
const patterns: LabelledRow[] = BUILTIN_PATTERNS.filter((p) => p.side === "input").map((p) => ({ id: p.slug, text: p.text, attack: true, family: p.family, source: "built-in patterns", group: "built-in patterns" }));
// --project-data-only: no public row reaches the encoder (every public source stays unseen by it).
const rows: (LabelledRow & { pair?: number })[] = [...(process.argv.includes("--project-data-only") ? [] : data), ...own, ...patterns];

const readability = Readability.ofModel(MODEL_DIR);
const hash = (text: string) => createHash("sha256").update(text).digest().readUInt32BE(0);

function keptWindows(row: LabelledRow): string[] {
  const windows = planWindows([row.text], () => false, { budgetTokens: 0, windowTokens: WINDOW_TOKENS, readability }).windows;
  if (windows.length <= WINDOWS_PER_ROW) return windows;
  const byCues = windows.map((text, i) => ({ text, i, cues: cueScore(text) })).sort((a, b) => b.cues - a.cues || a.i - b.i);
  if (row.attack) return byCues.slice(0, WINDOWS_PER_ROW).map((w) => w.text);
  const chosen = byCues.slice(0, WINDOWS_PER_ROW - 1).map((w) => w.text);
  const rest = windows.filter((w) => !chosen.includes(w));
  return [...chosen, rest[hash(row.text) % rest.length]!];
}

const { tokenizer } = await Embedder.tokenizerFor(MODEL_DIR);
const ids = (text: string): number[] => {
  const all = [...tokenizer.encode(text).ids];
  return all.length <= MAX_TOKENS ? all : [...all.slice(0, MAX_TOKENS - 1), all.at(-1)!];
};

const lines: string[] = [];
let windowCount = 0;
for (const row of rows) {
  const windows = keptWindows(row).map(ids).filter((w) => w.length > 2);
  if (windows.length === 0) continue;
  windowCount += windows.length;
  lines.push(JSON.stringify({ id: row.id, group: row.group, attack: row.attack ? 1 : 0, family: row.family, windows, ...(row.pair === undefined ? {} : { pair: row.pair }) }));
}
writeFileSync(out, `${lines.join("\n")}\n`);
const groups = new Map<string, number>();
for (const row of rows) groups.set(row.group, (groups.get(row.group) ?? 0) + 1);
console.error(`prepare: ${lines.length} rows, ${windowCount} windows → ${out} (training data ${data.length}, ${calibration.length} more kept out for the calibration; own ${own.length}, patterns ${patterns.length}; ${groups.size} source groups)`);
