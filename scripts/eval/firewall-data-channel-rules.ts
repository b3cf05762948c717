/**
 * The data channel's rule files compared on the project's data-channel dev set
 * (firewall-data-channel-set.ts: written for Sieve, never fitted on), each row scanned as a document
 * chunk is (every window, the chunk's second look), to choose between finished variants of
 * `bun scripts/fit/firewall-data-channel.ts --out FILE` without fitting on the dev set. A row is
 * flagged when its verdict is block. The shipped file first; `--rules a.json,b.json` adds variants.
 * The figures of record are eval:firewall's and scripts/eval/chunk-flags.ts's (through the server).
 *
 *   bun scripts/eval/firewall-data-channel-rules.ts [--rules a.json,b.json] [--second-look 128] [--second-look-from 0.7] [--dump-windows FILE]
 * (the chunk scan's options, to compare what they cost and change)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { loadConfig } from "../../src/config";
import { libraryIndexInput } from "../../src/firewall/builtins";
import { CALIBRATION } from "../../src/firewall/calibration";
import { CHUNK_SECOND_LOOK_FROM, CHUNK_SECOND_LOOK_TOKENS } from "../../src/firewall/chunk-flags";
import { addresseeScore, DATA_CHANNEL, type DataChannelRule } from "../../src/firewall/data-channel";
import { decide } from "../../src/firewall/decision";
import { firewallEmbedderKey, firewallScanOptions } from "../../src/firewall/encoder";
import { BuiltinIndex, WorkspacePatterns } from "../../src/firewall/pattern-index";
import { dataChannelRows, type DataChannelRow } from "./firewall-data-channel-set";
import { actionUnderRule, FirstSightEmbedding, scanRecording, type RecordedScan } from "./firewall-data";
import { percent } from "./firewall-metrics";

const { values: args } = parseArgs({ options: { rules: { type: "string", default: "" }, "dump-windows": { type: "string" }, "second-look": { type: "string", default: String(CHUNK_SECOND_LOOK_TOKENS) }, "second-look-from": { type: "string", default: String(CHUNK_SECOND_LOOK_FROM) } } });
const variants: [string, DataChannelRule | undefined][] = [
  ["user rule (no data rule)", undefined],
  ["shipped data-channel.json", DATA_CHANNEL],
  ...args.rules.split(",").filter(Boolean).map((file): [string, DataChannelRule] => [file, JSON.parse(readFileSync(file, "utf8"))]),
];

const config = loadConfig([]);
const options = { ...firewallScanOptions(config), budgetTokens: 0, secondLookTokens: Number(args["second-look"]), secondLookFrom: Number(args["second-look-from"]) };
const embedding = await FirstSightEmbedding.load(config);
const library = await libraryIndexInput(firewallEmbedderKey(config), (texts) => embedding.embedMany(texts));
const patterns = WorkspacePatterns.defaults(new BuiltinIndex(library.patterns, library.contrast, CALIBRATION, embedding.embedder.dimensions));

// Scanned once on the user channel (no data rule), with every window's vector; each rule is applied to copies.
const rows = dataChannelRows();
const scanned: { row: DataChannelRow; scan: RecordedScan }[] = [];
for (const row of rows) scanned.push({ row, scan: await scanRecording(row.text, patterns, embedding, options) });
embedding.save();
const runs = scanned.reduce((n, s) => n + s.scan.vectors.length, 0);
// --dump-windows FILE: every window above 0.5 (the only ones the data rule can act on), for scoring by another reader.
if (args["dump-windows"]) {
  const lines = scanned.flatMap(({ row, scan }) =>
    scan.scores.flatMap((w, i) => (w.best?.pattern.builtIn && w.best.score > 0.5 ? [JSON.stringify({ id: `${row.id}@${i}`, row: row.id, kind: row.kind, attack: row.attack, score: w.best.score, head: DATA_CHANNEL.addressee ? addresseeScore(DATA_CHANNEL.addressee, scan.vectors[i]!) : null, text: scan.texts[i] })] : [])),
  );
  writeFileSync(args["dump-windows"], `${lines.join("\n")}\n`);
}
console.log(`${rows.length} rows, ${runs} windows scored (${(runs / rows.length).toFixed(1)} per row; second look ${args["second-look"]} tokens from ${args["second-look-from"]})`);

for (const [name, rule] of variants) {
  const flagged = scanned.map(({ row, scan }) => ({ row, flagged: (rule ? actionUnderRule(scan, rule) : decide(scan.scores, "input").verdict.action) === "block" }));
  const rate = (list: typeof flagged) => `${percent(list.filter((o) => o.flagged).length / list.length)} (${list.filter((o) => o.flagged).length}/${list.length})`;
  console.log(`\n### ${name}\n\n| wrapper | injected | plain | person-addressed | answer instructions (no AI named) | reply requests to a person |\n|---|---|---|---|---|---|`);
  for (const wrapper of [...new Set(rows.map((r) => r.wrapper)), "all"]) {
    const some = flagged.filter((o) => wrapper === "all" || o.row.wrapper === wrapper);
    console.log(`| ${wrapper} | ${rate(some.filter((o) => o.row.kind === "injected"))} | ${rate(some.filter((o) => o.row.kind === "plain"))} | ${rate(some.filter((o) => o.row.kind === "human-request"))} | ${rate(some.filter((o) => o.row.kind === "answer-instruction"))} | ${rate(some.filter((o) => o.row.kind === "reply-request"))} |`);
  }
}
process.exit(0);
