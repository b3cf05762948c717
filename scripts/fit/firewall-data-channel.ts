/**
 * npm run fit:firewall-data-channel -- [--per-pool N] [--fpr F]
 *
 * Fits the data channel's threshold (src/firewall/data-channel.ts): every row is scanned as the
 * server scans a tool result seen for the first time (scan.ts, window budget and second look),
 * its score is the best built-in pattern's calibrated score over its windows, and the threshold is
 * the lowest score that at most F (default 1%) of the benign data rows exceed. Training rows only:
 * injections inside constructed documents and agent tool outputs (firewall-train-v2's
 * constructed-indirect, v3's constructed-agent-indirect, injecagent, agentdojo) against untouched
 * carriers of the same kinds (constructed-docs, constructed-agent-docs, constructed-injecagent-benign,
 * injecagent-sim-outputs, agentdojo-benign). N rows per pool (default 200), chosen by a hash of the id.
 * Never firewall-dev nor the data-channel dev set (scripts/eval/firewall-data-channel.ts).
 * Writes models/sieve-firewall/data-channel.json and renders MODEL_CARD.md again.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../../src/config";
import { libraryIndexInput } from "../../src/firewall/builtins";
import { CALIBRATION } from "../../src/firewall/calibration";
import { firewallEmbedderKey, firewallScanOptions } from "../../src/firewall/encoder";
import { BuiltinIndex, WorkspacePatterns } from "../../src/firewall/pattern-index";
import { planWindows, scanTexts } from "../../src/firewall/scan";
import { DATASETS, FirstSightEmbedding, readLabelled, type LabelledRow } from "../eval/firewall-data";
import { percent, rocAuc, tprAtFpr } from "../eval/firewall-metrics";
import { gitCommit, writeFirewallModelCard } from "./firewall-model-card";

const { values: args } = parseArgs({ options: { "per-pool": { type: "string", default: "200" }, fpr: { type: "string", default: "0.01" } } });
const perPool = Number(args["per-pool"]);
const targetFpr = Number(args.fpr);
const POOLS = ["fw2-constructed-indirect", "fw3-constructed-agent-indirect", "fw3-injecagent", "fw3-agentdojo", "fw2-constructed-docs", "fw3-constructed-agent-docs", "fw3-constructed-injecagent-benign", "fw3-injecagent-sim-outputs", "fw3-agentdojo-benign"];
const poolOf = (row: LabelledRow) => POOLS.find((pool) => row.id.startsWith(`${pool}-`) && /^[0-9a-f]+$/.test(row.id.slice(pool.length + 1)));
const rank = (id: string) => createHash("sha256").update(id).digest("hex");

const rows = ["firewall-train-v2.jsonl", "firewall-train-v3-additions.jsonl"].flatMap((file) => readLabelled(join(DATASETS, file)));
const chosen = POOLS.flatMap((pool) =>
  rows
    .filter((row) => poolOf(row) === pool)
    .sort((a, b) => rank(a.id).localeCompare(rank(b.id)))
    .slice(0, perPool),
);

const config = loadConfig([]);
const options = firewallScanOptions(config);
const embedding = await FirstSightEmbedding.load(config);
const library = await libraryIndexInput(firewallEmbedderKey(config), (texts) => embedding.embedMany(texts));
const patterns = WorkspacePatterns.defaults(new BuiltinIndex(library.patterns, library.contrast, CALIBRATION, embedding.embedder.dimensions));
await embedding.embedMany(chosen.flatMap((row) => planWindows([row.text], () => false, options).windows));
embedding.save();

const scored: { pool: string; score: number; attack: boolean }[] = [];
for (const row of chosen) {
  // Scored on the user channel: the best built-in score is the same, and no data-channel rule (the one being fitted) is applied.
  const result = await scanTexts([row.text], patterns, embedding, options);
  const score = Math.max(0, ...result.scores.map((w) => (w.best?.pattern.builtIn ? w.best.score : 0)));
  scored.push({ pool: poolOf(row)!, score, attack: row.attack });
}
embedding.save();

const benign = scored.filter((r) => !r.attack).map((r) => r.score).sort((a, b) => b - a);
const threshold = Math.round(benign[Math.floor(targetFpr * benign.length)]! * 1000) / 1000;
const caught = (rs: typeof scored) => rs.filter((r) => r.score > threshold).length / rs.length;
const byPool = Object.fromEntries(POOLS.map((pool) => [pool, { rows: scored.filter((r) => r.pool === pool).length, above: Math.round(caught(scored.filter((r) => r.pool === pool)) * 1000) / 1000 }]));
const fit = {
  rows: scored.length,
  perPool,
  targetFpr,
  rocAuc: Math.round(rocAuc(scored) * 1000) / 1000,
  tprAtTargetFpr: Math.round(tprAtFpr(scored, targetFpr) * 1000) / 1000,
  userThresholdTpr: Math.round(scored.filter((r) => r.attack && r.score > 0.9).length / scored.filter((r) => r.attack).length * 1000) / 1000,
  byPool,
  commit: gitCommit(),
  note: "training rows; the lexical model was fitted on firewall-train-v2, so its rows flatter these figures",
};
writeFileSync(resolve(import.meta.dir, "../../models/sieve-firewall/data-channel.json"), `${JSON.stringify({ threshold, fit }, null, 2)}\n`);
writeFirewallModelCard();
console.log(`data-channel threshold ${threshold} (benign data rows above it: ${percent(caught(scored.filter((r) => !r.attack)))}; attacks above it: ${percent(caught(scored.filter((r) => r.attack)))}; above 0.9: ${percent(fit.userThresholdTpr)})`);
console.log(`| pool | rows | above ${threshold} |\n|---|---|---|`);
for (const [pool, v] of Object.entries(byPool)) console.log(`| ${pool} | ${v.rows} | ${percent(v.above)} |`);
process.exit(0);
