/**
 * npm run eval:firewall-output [--sample 4000]
 *
 * The output check's cue gate (src/firewall/output-cues.ts) against the embedding it saves. For
 * every window the output check would read (all of them: no window budget), the window's best
 * score against the built-in output patterns (the firewall's encoder, the shipped calibration) and
 * whether the gate lets it through to the embedding. The gate is safe when every window scoring
 * at or above a threshold is let through: printed at the default threshold (0.9) and at the
 * lowest one the gate vouches for (LOWEST_GATED_THRESHOLD). What it saves: the share of windows,
 * and of whole answers, judged without an embedding.
 *
 * Rows: a seeded sample of the training files (stratified by source; texts, as a stand-in for
 * what a model writes), the project's own output-side set (scripts/eval/firewall-output-set.ts:
 * answers of a model an attack worked on, and ordinary answers), and firewall-dev.jsonl for
 * reporting. Nothing is fitted here; the gate's rule (stems of the patterns' words) has no
 * parameter fitted on any of these rows.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../../src/config";
import { libraryIndexInput } from "../../src/firewall/builtins";
import { CALIBRATION } from "../../src/firewall/calibration";
import { firewallEmbedderKey, firewallScanOptions } from "../../src/firewall/encoder";
import { LOWEST_GATED_THRESHOLD, OutputCues } from "../../src/firewall/output-cues";
import { BuiltinIndex, WorkspacePatterns } from "../../src/firewall/pattern-index";
import { planWindows } from "../../src/firewall/scan";
import { scoreOutputWindows } from "../../src/firewall/scoring";
import { foldForModels, hasTokens } from "../../src/embeddings/model-text";
import { seededRandom } from "../seeded-random";
import { DATASETS, FirstSightEmbedding, readLabelled } from "./firewall-data";
import { outputRows } from "./firewall-output-set";

const { values: args } = parseArgs({ options: { sample: { type: "string", default: "4000" } } });
const config = loadConfig([]);
const options = firewallScanOptions(config);
// The output check compares in the general model's own (last-layer) space, the cache's, not the input side's layer-4 view.
const firewallEncoder = await FirstSightEmbedding.load(config);
const embedding = firewallEncoder.customSpace ?? firewallEncoder;
const library = await libraryIndexInput(`${firewallEmbedderKey(config)}/output-space`, (texts) => embedding.embedMany(texts));
const patterns = WorkspacePatterns.defaults(new BuiltinIndex(library.patterns, library.contrast, CALIBRATION, embedding.embedder.dimensions));
const cues = OutputCues.forPatterns(patterns)!;

type Row = { text: string; set: string; attack: boolean };

function sample(file: string, count: number): Row[] {
  const rows = readLabelled(join(DATASETS, file));
  const random = seededRandom(2411);
  const shuffled = rows.map((row) => ({ row, key: random() })).sort((a, b) => a.key - b.key).map((x) => x.row);
  return shuffled.slice(0, count).map((row) => ({ text: row.text, set: `train: ${row.group}`, attack: row.attack }));
}

const perFile = Math.round(Number(args.sample) / 3);
const rows: Row[] = [
  ...["firewall-train.jsonl", "firewall-train-v2.jsonl", "firewall-train-v3-additions.jsonl"].flatMap((file) => sample(file, perFile)),
  ...outputRows().map((row) => ({ text: row.text, set: `output set: ${row.kind}`, attack: row.attack })),
  ...readLabelled(join(DATASETS, "firewall-dev.jsonl")).map((row) => ({ text: row.text, set: `dev: ${row.group}`, attack: row.attack })),
];

type WindowResult = { score: number; gated: boolean };
const results: { row: Row; windows: WindowResult[] }[] = [];
const windowsOf = (text: string) =>
  planWindows([text], () => false, { budgetTokens: 0, windowTokens: options.windowTokens }).windows.map(foldForModels).filter((w) => hasTokens(w) && options.readability.readable(w));
await embedding.embedMany(rows.flatMap((row) => windowsOf(row.text)));
embedding.save();
for (const row of rows) {
  const windows = windowsOf(row.text);
  const vectors = await embedding.embedMany(windows);
  const scores = scoreOutputWindows(patterns, vectors);
  results.push({ row, windows: windows.map((window, i) => ({ score: scores[i]!.best?.score ?? 0, gated: cues.mayMatch(window) })) });
}
embedding.save();

const sets = [...new Set(results.map((r) => r.row.set.split(":")[0]!))];
const pct = (a: number, b: number) => (b === 0 ? "–" : `${((100 * a) / b).toFixed(1)}%`);
console.log(`\neval:firewall-output — ${rows.length} rows, ${results.reduce((n, r) => n + r.windows.length, 0)} windows of ${options.windowTokens} tokens; ${cues.stems.size} cue stems from the enabled built-in output patterns\n`);
console.log("| rows | windows | windows ≥ 0.9 (fire at defaults) | of them let through | windows ≥ " + LOWEST_GATED_THRESHOLD + " | of them let through | windows judged without embedding | answers judged without embedding |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const group of [...sets, ...new Set(results.map((r) => r.row.set))].sort()) {
  const chosen = results.filter((r) => r.row.set === group || r.row.set.split(":")[0] === group);
  const windows = chosen.flatMap((r) => r.windows);
  const fire = windows.filter((w) => w.score >= 0.9);
  const near = windows.filter((w) => w.score >= LOWEST_GATED_THRESHOLD);
  const skipped = windows.filter((w) => !w.gated).length;
  const wholeSkipped = chosen.filter((r) => r.windows.every((w) => !w.gated)).length;
  console.log(`| ${group} (${chosen.length}) | ${windows.length} | ${fire.length} | ${pct(fire.filter((w) => w.gated).length, fire.length)} | ${near.length} | ${pct(near.filter((w) => w.gated).length, near.length)} | ${pct(skipped, windows.length)} | ${pct(wholeSkipped, chosen.length)} |`);
}
const missed = results.flatMap((r) => r.windows.filter((w) => w.score >= LOWEST_GATED_THRESHOLD && !w.gated).map((w) => ({ set: r.row.set, score: w.score })));
console.log(`\nWindows at or above ${LOWEST_GATED_THRESHOLD} the gate would have skipped: ${missed.length}${missed.length ? ` (${missed.slice(0, 10).map((m) => `${m.set} ${m.score.toFixed(3)}`).join("; ")})` : ""}`);
const skippedScores = results.flatMap((r) => r.windows.filter((w) => !w.gated).map((w) => w.score));
console.log(`Highest score of a window the gate skipped: ${Math.max(0, ...skippedScores).toFixed(3)} (the gate vouches for thresholds from ${LOWEST_GATED_THRESHOLD})`);
