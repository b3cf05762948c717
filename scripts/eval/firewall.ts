/**
 * npm run eval:firewall [file.jsonl]   (default ../shared/datasets/firewall-dev.jsonl)
 *
 * Runs the server's input decision (scan.ts: windows, window budget, one matrix product,
 * calibration, thresholds, strongest action) over a labelled JSONL of {text, label: attack|benign,
 * source?, family?} with every built-in pattern at its default action and threshold, each text as
 * one user message seen for the first time. Prints markdown tables: ROC AUC, TPR at 1% and 5% FPR,
 * and TPR/FPR of the configured thresholds, overall and per source and family.
 */
import { join } from "node:path";
import { configWith, loadConfig } from "../../src/config";
import { embedderKey, libraryIndexInput } from "../../src/firewall/builtins";
import { CALIBRATION } from "../../src/firewall/calibration";
import { FAMILY_DEFAULTS } from "../../src/firewall/library";
import { BuiltinIndex, WorkspacePatterns } from "../../src/firewall/pattern-index";
import { scanTexts, SECOND_LOOK_FROM, type ScanResult } from "../../src/firewall/scan";
import { textWindows } from "../../src/firewall/windows";
import { DATASETS, FirstSightEmbedding, readLabelled, type LabelledRow } from "./firewall-data";
import { percent, rocAuc, tprAtFpr, type Scored } from "./firewall-metrics";

const file = process.argv[2] ?? join(DATASETS, "firewall-dev.jsonl");
// SIEVE_EMBED_BACKEND=wasm evaluates on the WASM fallback (default: native where it loads).
const config = configWith({ embedBackend: loadConfig([], { SIEVE_EMBED_BACKEND: process.env.SIEVE_EMBED_BACKEND }).embedBackend });
const embedding = await FirstSightEmbedding.load(config);
const library = await libraryIndexInput(embedderKey(config), (texts) => embedding.embedMany(texts));
const patterns = WorkspacePatterns.defaults(new BuiltinIndex(library.patterns, library.contrast, CALIBRATION, embedding.embedder.dimensions));
const options = { budgetTokens: config.firewallWindowBudget, windowTokens: CALIBRATION.windowTokens };

const rows = readLabelled(file);
// Embed every window once up front (one batched pass, cached on disk); the scan below then runs per row as the server would.
await embedding.embedMany(rows.flatMap((row) => textWindows(row.text, options.windowTokens)));
embedding.save();

type Outcome = { row: LabelledRow; result: ScanResult; score: number; raw: number };
const outcomes: Outcome[] = [];
for (const row of rows) {
  const result = await scanTexts([row.text], patterns, embedding, options);
  const raw = Math.max(...result.scores.map((s) => s.signals!.top));
  outcomes.push({ row, result, score: result.best?.score ?? 0, raw });
}

const skipped = outcomes.filter((o) => o.result.skipped > 0).length;
console.log(`\n### Firewall evaluation: ${file.split("/").pop()} (${rows.length} rows: ${rows.filter((r) => r.attack).length} attacks, ${rows.filter((r) => !r.attack).length} benign)\n`);
console.log(
  `Calibration fitted on ${(CALIBRATION as { fit?: { train?: string } }).fit?.train ?? "?"}; default thresholds ${Object.entries(FAMILY_DEFAULTS)
    .map(([f, d]) => `${f} ${d.action} > ${d.threshold}`)
    .join(", ")}; window budget ${options.budgetTokens} tokens (${skipped} rows sampled).\n`,
);

const header = ["slice", "attacks", "benign", "ROC AUC", "TPR@1% FPR", "TPR@5% FPR", "flagged TPR", "flagged FPR", "blocked TPR", "blocked FPR", "raw-cosine AUC", "raw TPR@1%", "raw TPR@5%"];
console.log(`| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
const benignAll = outcomes.filter((o) => !o.row.attack);
const line = (name: string, attacks: Outcome[], benign: Outcome[]) => {
  const scored: Scored[] = [...attacks, ...benign].map((o) => ({ score: o.score, attack: o.row.attack }));
  const raw: Scored[] = [...attacks, ...benign].map((o) => ({ score: o.raw, attack: o.row.attack }));
  const share = (list: Outcome[], test: (o: Outcome) => boolean) => (list.length ? list.filter(test).length / list.length : NaN);
  const flagged = (o: Outcome) => o.result.verdict.action !== "allow";
  const blocked = (o: Outcome) => o.result.verdict.action === "block";
  console.log(
    `| ${[
      name,
      attacks.length,
      benign.length,
      rocAuc(scored).toFixed(3),
      percent(tprAtFpr(scored, 0.01)),
      percent(tprAtFpr(scored, 0.05)),
      percent(share(attacks, flagged)),
      percent(share(benign, flagged)),
      percent(share(attacks, blocked)),
      percent(share(benign, blocked)),
      rocAuc(raw).toFixed(3),
      percent(tprAtFpr(raw, 0.01)),
      percent(tprAtFpr(raw, 0.05)),
    ].join(" | ")} |`,
  );
};
line("all", outcomes.filter((o) => o.row.attack), benignAll);
const groups = [...new Set(rows.map((r) => r.group))];
for (const group of groups) {
  const attacks = outcomes.filter((o) => o.row.attack && o.row.group === group);
  const benign = outcomes.filter((o) => !o.row.attack && o.row.group === group);
  if (attacks.length > 0) line(`source ${group}${benign.length ? "" : " (vs all benign)"}`, attacks, benign.length ? benign : benignAll);
  else line(`source ${group} (benign only)`, [], benign);
}
for (const family of [...new Set(rows.filter((r) => r.attack).map((r) => r.family ?? "none"))]) {
  line(`family ${family} (vs all benign)`, outcomes.filter((o) => o.row.attack && (o.row.family ?? "none") === family), benignAll);
}

// Threshold sweep: every pattern at threshold t; a row is flagged when its best score exceeds t.
const sweep = [0.75, 0.8, 0.85, 0.9, 0.95];
const sliceOf = (name: string, attacks: Outcome[], benign: Outcome[]) => ({ name, attacks, benign });
const sweepSlices = [
  sliceOf("all", outcomes.filter((o) => o.row.attack), benignAll),
  ...groups
    .filter((g) => outcomes.some((o) => o.row.group === g && o.row.attack) && outcomes.some((o) => o.row.group === g && !o.row.attack))
    .map((g) => sliceOf(g, outcomes.filter((o) => o.row.attack && o.row.group === g), outcomes.filter((o) => !o.row.attack && o.row.group === g))),
];
console.log(`\nThreshold sweep (all patterns at threshold t; TPR / FPR):\n`);
console.log(`| slice | ${sweep.map((t) => `t = ${t}`).join(" | ")} |\n|---|${sweep.map(() => "---").join("|")}|`);
for (const slice of sweepSlices) {
  const cell = (t: number) => `${percent(slice.attacks.filter((o) => o.score > t).length / slice.attacks.length)} / ${percent(slice.benign.filter((o) => o.score > t).length / slice.benign.length)}`;
  console.log(`| ${slice.name} | ${sweep.map(cell).join(" | ")} |`);
}

const byFamily = new Map<string, number>();
for (const o of outcomes.filter((o) => o.row.attack && o.result.verdict.family)) byFamily.set(o.result.verdict.family!, (byFamily.get(o.result.verdict.family!) ?? 0) + 1);
const secondLook = (attack: boolean) => {
  const side = outcomes.filter((o) => o.row.attack === attack);
  const looked = side.filter((o) => o.result.secondLook > 0);
  const extra = looked.reduce((sum, o) => sum + o.result.secondLook, 0);
  return `${percent(looked.length / side.length)} of ${attack ? "attacks" : "benign rows"} (${looked.length ? (extra / looked.length).toFixed(1) : 0} sub-windows each)`;
};
console.log(`\nSecond look (score ≥ ${SECOND_LOOK_FROM}): ${secondLook(false)}, ${secondLook(true)}.`);
console.log(`\nFamilies named in verdicts on attacks: ${[...byFamily].map(([f, n]) => `${f} ${n}`).join(", ") || "none"}.`);
