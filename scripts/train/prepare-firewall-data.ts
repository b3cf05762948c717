/**
 * Step 1 of `npm run train:firewall`: turns the training rows into token ids for the Python
 * trainer (scripts/train/firewall_encoder.py), windowed exactly as the server windows a message
 * (planWindows without a budget: folded as the provider's model reads it, encoded payloads as
 * windows of their own, windows the encoder cannot read left out) and tokenised by the model's
 * own tokenizer, so the encoder learns on what it will see.
 *
 *   bun scripts/train/prepare-firewall-data.ts OUT.jsonl [--matched-pairs] [--project-data-only]
 *       [--v3 [--per-pool N]] [--score FILE.jsonl ...]
 *
 * Rows: the encoder's share of firewall-train-v2.jsonl and firewall-train.jsonl
 * (firewall-training-rows.ts; the calibration's fifth is kept out), the project-written examples
 * (scripts/fit/firewall-own-examples.ts, one source group per category) and the built-in input
 * patterns (as attacks of their family). Never firewall-dev.jsonl.
 * --v3: also firewall-train-v3-additions.jsonl (every row, as the calibration's fifth is a v2
 * notion), and the public rows of both files grouped by their pool (the id's prefix, e.g.
 * fw3-injecagent), so that leave-one-source-out can leave one pool out; at most N rows per pool
 * (--per-pool, default 300, chosen by a hash of the id), the project's rows and patterns uncapped.
 * Every line carries its windows' token ids and texts (`texts`, for embedding them with the
 * server's own int8 model: dump-firewall-vectors.ts).
 * --score FILE: rows to be measured only (never trained on): every window the server plans
 * (up to 24 per row), written with split "score" and the file's source per row.
 * A long training text keeps at most three windows (keptWindows in firewall-training-rows.ts: those
 * with the most attack cue words, plus one more for benign rows). An attack row is then trained as
 * attack-like as its most attack-like kept window (multiple instance).
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Embedder } from "../../src/embeddings/embedder";
import { Readability } from "../../src/embeddings/readability";
import { planWindows } from "../../src/firewall/scan";
import { WINDOW_TOKENS } from "../../src/firewall/windows";
import { readLabelled, type LabelledRow } from "../eval/firewall-data";
import { encoderDataRows, keptWindows, pooledPublicRows, projectRows } from "./firewall-training-rows";

/** Token cap per window, [CLS] and [SEP] included: windows are ~32 estimated tokens, foreign scripts run longer. */
const MAX_TOKENS = 64;
/** Windows measured per scored row: the server's planner without a budget, the first ones. */
const SCORED_WINDOWS = 24;
export const MODEL_DIR = resolve(import.meta.dir, "../../models/all-MiniLM-L6-v2");

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "matched-pairs": { type: "boolean", default: false },
    "project-data-only": { type: "boolean", default: false },
    v3: { type: "boolean", default: false },
    "per-pool": { type: "string", default: "300" },
    score: { type: "string", multiple: true, default: [] },
  },
});
const out = positionals[0];
if (!out) throw new Error("usage: bun scripts/train/prepare-firewall-data.ts OUT.jsonl [--matched-pairs] [--project-data-only] [--v3 [--per-pool N]] [--score FILE ...]");

const { encoder: data, calibration } = encoderDataRows();
const { own, patterns } = projectRows({ matchedPairs: flags["matched-pairs"] });
// --project-data-only: no public row reaches the encoder (every public source stays unseen by it).
const publicRows = flags["project-data-only"] ? [] : flags.v3 ? pooledPublicRows(Number(flags["per-pool"]), data) : data;
const rows: (LabelledRow & { pair?: number })[] = [...publicRows, ...own, ...patterns];

const readability = Readability.ofModel(MODEL_DIR);
const { tokenizer } = await Embedder.tokenizerFor(MODEL_DIR);
const ids = (text: string): number[] => {
  const all = [...tokenizer.encode(text).ids];
  return all.length <= MAX_TOKENS ? all : [...all.slice(0, MAX_TOKENS - 1), all.at(-1)!];
};

const lines: string[] = [];
let windowCount = 0;
for (const row of rows) {
  const texts = keptWindows(row, readability).filter((w) => ids(w).length > 2);
  if (texts.length === 0) continue;
  windowCount += texts.length;
  lines.push(JSON.stringify({ id: row.id, group: row.group, attack: row.attack ? 1 : 0, family: row.family, windows: texts.map(ids), texts, ...(row.pair === undefined ? {} : { pair: row.pair }) }));
}
let scored = 0;
for (const file of flags.score) {
  for (const row of readLabelled(file)) {
    const planned = planWindows([row.text], () => false, { budgetTokens: 0, windowTokens: WINDOW_TOKENS, readability }).windows.slice(0, SCORED_WINDOWS);
    const texts = planned.filter((w) => ids(w).length > 2);
    if (texts.length === 0) continue;
    scored++;
    lines.push(JSON.stringify({ id: row.id, group: row.group, source: row.source, attack: row.attack ? 1 : 0, split: "score", windows: texts.map(ids), texts }));
  }
}
writeFileSync(out, `${lines.join("\n")}\n`);
const groups = new Map<string, number>();
for (const row of rows) groups.set(row.group, (groups.get(row.group) ?? 0) + 1);
console.error(`prepare: ${lines.length - scored} rows, ${windowCount} windows → ${out} (training data ${publicRows.length}, ${calibration.length} v2/v1 rows kept out for the calibration; own ${own.length}, patterns ${patterns.length}; ${groups.size} source groups; ${scored} rows to score)`);
