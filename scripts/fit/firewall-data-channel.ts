/**
 * npm run fit:firewall-data-channel -- [--per-pool N] [--fpr F] [--person-rows N] [--model-rows N] [--answer-rows N] [--tau-rows N] [--l2 L] [--keep K]
 *   [--validation N] [--addressed-cost C] [--out FILE]
 *
 * Fits the data channel's rule (src/firewall/data-channel.ts), on training rows only: injections
 * inside constructed documents and agent tool outputs (firewall-train-v2's constructed-indirect,
 * v3's constructed-agent-indirect, injecagent, agentdojo) against untouched carriers of the same
 * kinds (constructed-docs, constructed-agent-docs, constructed-injecagent-benign,
 * injecagent-sim-outputs, agentdojo-benign). N rows per pool (default 200), chosen by a hash of the id.
 * Never firewall-dev nor the data-channel dev set (scripts/eval/firewall-data-channel-set.ts).
 *
 * 1. The threshold: every row is scanned as the server scans a tool result seen for the first time
 *    (scan.ts, window budget and second look); its score is the best built-in pattern's calibrated
 *    score over its windows, and the threshold is the lowest score that at most F (default 1%) of
 *    the benign data rows exceed.
 * 2. The addressee head: a logistic model on a window's vector (the encoder's run the score already
 *    paid) telling an instruction to an AI model from one to a person. Rows: the pools' rows, the
 *    same carriers (other rows) with a project-written sentence to a person placed in them
 *    (firewall-own-addressed-requests.ts, 1,500 by default, among them requests about a reply to
 *    a person: "put your room number in the subject line of your response"), optionally N with a
 *    project-written sentence to an AI model (--model-rows; off by default: as positives beside
 *    the person rows, whose verb phrases they share, they weakened the head, research/firewall-experiments.md;
 *    positive: the best window holding the sentence, above 0.5), optionally N with a project-written
 *    instruction about the answer that names no AI (--answer-rows; off by default: the head then
 *    blocked reply requests to a person as often as the answers' instructions), and optionally v3's tau-bench rows
 *    (--tau-rows; off by default: its user-simulator instructions are written to a model, and as
 *    negatives they blurred the head on the dev set); each scanned as a document chunk is (every
 *    window, second look from 0.3). Positive: the best-scoring window of each injected row (where the injection
 *    sits), when it scores above 0.5; negative: every window of a benign row scoring above 0.5 (the
 *    only ones the head can change anything for). Its threshold keeps K (default 98%) of the
 *    training injections that block at 0.9 without it.
 * 3. The addressed rule: in a window the head scores above H, a built-in fires from 0.5 (the lowest
 *    score the head was fitted on). H is chosen on validation rows the steps above do not fit on:
 *    the next N rows of every pool (default 300) and as many person-addressed rows more, scanned as
 *    chunks and judged by the server's decision (so a warning hit raised to block counts); it is the
 *    lowest H (0.60–0.99) at which the benign ones blocked rise by at most C (default 0.3
 *    percentage points; at 0.5 the refit of 2026-11-30 chose 0.75, and a head of 0.755 on a
 *    fragment of Node.js documentation flagged it in three formats) over the rule without it. (The benign pools' later rows are the
 *    person rows' carriers, so their untouched windows were seen by the head: read as optimistic.)
 * Writes models/sieve-firewall/data-channel.json and renders MODEL_CARD.md again.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../../src/config";
import { libraryIndexInput } from "../../src/firewall/builtins";
import { CALIBRATION } from "../../src/firewall/calibration";
import { CHUNK_SECOND_LOOK_TOKENS } from "../../src/firewall/chunk-flags";
import { addresseeScore, type AddressedRule, type AddresseeHead, type DataChannelRule } from "../../src/firewall/data-channel";
import { firewallEmbedderKey, firewallScanOptions } from "../../src/firewall/encoder";
import { BuiltinIndex, WorkspacePatterns } from "../../src/firewall/pattern-index";
import { planWindows, scanTexts, type ScanOptions } from "../../src/firewall/scan";
import { actionUnderRule, DATASETS, FirstSightEmbedding, readLabelled, scanRecording, type LabelledRow, type RecordedScan } from "../eval/firewall-data";
import { percent, rocAuc, tprAtFpr } from "../eval/firewall-metrics";
import { fitLogistic } from "./firewall-logistic";
import { gitCommit, lexicalFingerprint, readFitted, writeFirewallModelCard } from "./firewall-model-card";
import { answerInstructions, assertNotFromDataChannelDev, modelRequests, personRequests, placeInCarrier } from "./firewall-own-addressed-requests";

const { values: args } = parseArgs({
  options: {
    "per-pool": { type: "string", default: "200" },
    fpr: { type: "string", default: "0.01" },
    "person-rows": { type: "string", default: "1500" },
    "model-rows": { type: "string", default: "0" },
    "answer-rows": { type: "string", default: "0" },
    "tau-rows": { type: "string", default: "0" },
    l2: { type: "string", default: "0.001" },
    keep: { type: "string", default: "0.98" },
    validation: { type: "string", default: "300" },
    "addressed-cost": { type: "string", default: "0.003" },
    /** Positive windows: `top` (each injected row's best-scoring window) or `hot` (and its other windows above 0.9). */
    positives: { type: "string", default: "top" },
    /** Also write the head's training windows (JSONL: id, group, attack, score, text). */
    "dump-head-windows": { type: "string" },
    /** Write the rule elsewhere (a variant to compare on the dev set) and leave the shipped file and card alone. */
    out: { type: "string" },
  },
});
const perPool = Number(args["per-pool"]);
const targetFpr = Number(args.fpr);
const ATTACK_POOLS = ["fw2-constructed-indirect", "fw3-constructed-agent-indirect", "fw3-injecagent", "fw3-agentdojo"];
const BENIGN_POOLS = ["fw2-constructed-docs", "fw3-constructed-agent-docs", "fw3-constructed-injecagent-benign", "fw3-injecagent-sim-outputs", "fw3-agentdojo-benign"];
const POOLS = [...ATTACK_POOLS, ...BENIGN_POOLS];
const poolOf = (row: LabelledRow, pools = POOLS) => pools.find((pool) => row.id.startsWith(`${pool}-`) && /^[0-9a-f]+$/.test(row.id.slice(pool.length + 1)));
const rank = (id: string) => createHash("sha256").update(id).digest("hex");
const ranked = (rows: LabelledRow[], pool: string) => rows.filter((row) => poolOf(row, [pool]) === pool).sort((a, b) => rank(a.id).localeCompare(rank(b.id)));

const rows = ["firewall-train-v2.jsonl", "firewall-train-v3-additions.jsonl"].flatMap((file) => readLabelled(join(DATASETS, file)));
const chosen = POOLS.flatMap((pool) => ranked(rows, pool).slice(0, perPool));

// The head's extra rows: person-addressed sentences in carriers the threshold fit does not use, and tau-bench.
const sentences = personRequests(Number(args["person-rows"]));
assertNotFromDataChannelDev(sentences);
const carriers = BENIGN_POOLS.flatMap((pool) => ranked(rows, pool).slice(perPool)).sort((a, b) => rank(`carrier-${a.id}`).localeCompare(rank(`carrier-${b.id}`)));
const personRows = sentences.map((sentence, i) => ({ text: placeInCarrier(carriers[i % carriers.length]!.text, sentence, (i * 0.37) % 1), attack: false, pool: "project-written person requests" }));
// Model-addressed sentences in the carriers after those of the person rows and their validation rows.
const modelSentences = modelRequests(Number(args["model-rows"]));
assertNotFromDataChannelDev(modelSentences);
const carrierOffset = sentences.length + Number(args.validation);
const modelRows = modelSentences.map((sentence, i) => ({ text: placeInCarrier(carriers[(carrierOffset + i) % carriers.length]!.text, sentence, (i * 0.53) % 1), attack: true, pool: "project-written model requests", sentence }));
// Instructions about the answer naming no AI, in the carriers after the model rows'.
const answerSentences = answerInstructions(Number(args["answer-rows"]));
assertNotFromDataChannelDev(answerSentences);
const answerOffset = carrierOffset + modelSentences.length;
const answerRows = answerSentences.map((sentence, i) => ({ text: placeInCarrier(carriers[(answerOffset + i) % carriers.length]!.text, sentence, (i * 0.61) % 1), attack: true, pool: "project-written answer instructions", sentence }));
const tauRows = ranked(rows, "fw3-tau-bench").slice(0, Number(args["tau-rows"])).map((row) => ({ text: row.text, attack: false, pool: "fw3-tau-bench" }));

const config = loadConfig([]);
const options = firewallScanOptions(config);
const embedding = await FirstSightEmbedding.load(config);
const library = await libraryIndexInput(firewallEmbedderKey(config), (texts) => embedding.embedMany(texts));
const patterns = WorkspacePatterns.defaults(new BuiltinIndex(library.patterns, library.contrast, CALIBRATION, embedding.embedder.dimensions));
await embedding.embedMany(chosen.flatMap((row) => planWindows([row.text], () => false, options).windows));
embedding.save();

const builtinScore = (w: { best?: { pattern: { builtIn: boolean }; score: number } }) => (w.best?.pattern.builtIn ? w.best.score : 0);

// 1. The threshold, as before: request-path scan, user channel (no data rule: the one being fitted).
const scored: { pool: string; score: number; attack: boolean }[] = [];
for (const row of chosen) {
  const result = await scanTexts([row.text], patterns, embedding, options);
  scored.push({ pool: poolOf(row)!, score: Math.max(0, ...result.scores.map(builtinScore)), attack: row.attack });
}
embedding.save();
const benign = scored.filter((r) => !r.attack).map((r) => r.score).sort((a, b) => b - a);
const threshold = Math.round(benign[Math.floor(targetFpr * benign.length)]! * 1000) / 1000;
const caught = (rs: typeof scored) => rs.filter((r) => r.score > threshold).length / rs.length;
const byPool = Object.fromEntries(POOLS.map((pool) => [pool, { rows: scored.filter((r) => r.pool === pool).length, above: round(caught(scored.filter((r) => r.pool === pool))) }]));

// 2. The addressee head, on windows scanned as a document chunk is.
// With the request path's second-look trigger (0.3): the head also judges the sub-windows a tool result gets.
const chunkOptions: ScanOptions = { ...options, budgetTokens: 0, secondLookTokens: CHUNK_SECOND_LOOK_TOKENS };
type ScannedRow = RecordedScan & { pool: string; attack: boolean; sentence?: string; windows: { score: number; vector: Float32Array; text: string }[] };
async function scanAsChunks(list: { text: string; attack: boolean; pool: string; sentence?: string }[]): Promise<ScannedRow[]> {
  const out: ScannedRow[] = [];
  for (const row of list) {
    const scan = await scanRecording(row.text, patterns, embedding, chunkOptions);
    out.push({ ...scan, pool: row.pool, attack: row.attack, sentence: row.sentence, windows: scan.scores.map((w, i) => ({ score: builtinScore(w), vector: scan.vectors[i]!, text: scan.texts[i]! })) });
  }
  embedding.save();
  return out;
}
const scanned = await scanAsChunks([...chosen.map((r) => ({ text: r.text, attack: r.attack, pool: poolOf(r)! })), ...personRows, ...modelRows, ...answerRows, ...tauRows]);

/** A window holds the placed sentence: it starts with the sentence's first five words, or lies inside it (a second-look piece). */
const spaced = (text: string) => text.replace(/\s+/g, " ").trim();
const holdsSentence = (window: string, sentence: string) => spaced(window).includes(spaced(sentence).split(" ").slice(0, 5).join(" ")) || spaced(sentence).includes(spaced(window));

const x: number[][] = [];
const y: boolean[] = [];
/** The head's training windows with their texts (--dump-head-windows: for training another reader on the same examples). */
const headWindows: { id: string; group: string; attack: boolean; score: number; text: string }[] = [];
const take = (row: ScannedRow, w: ScannedRow["windows"][number], attack: boolean) => {
  x.push(Array.from(w.vector));
  y.push(attack);
  headWindows.push({ id: `head-${headWindows.length}`, group: row.pool, attack, score: w.score, text: w.text });
};
for (const row of scanned) {
  if (row.sentence) {
    // The best-scoring window that holds the placed sentence, as for the pools' injected rows.
    const holding = row.windows.filter((w) => holdsSentence(w.text, row.sentence!));
    const top = holding.reduce((a, b) => (b.score > a.score ? b : a), holding[0]);
    if (top && top.score > 0.5) take(row, top, row.attack);
  } else if (row.attack) {
    const top = row.windows.reduce((a, b) => (b.score > a.score ? b : a), row.windows[0]);
    // With `hot`, its other windows above 0.9 count too (the carriers alone rarely get there: the benign pools above).
    for (const w of row.windows) if (w === top ? w.score > 0.5 : args.positives === "hot" && w.score > 0.9) take(row, w, true);
  } else for (const w of row.windows) if (w.score > 0.5) take(row, w, false);
}
if (args["dump-head-windows"]) writeFileSync(args["dump-head-windows"], `${headWindows.map((w) => JSON.stringify(w)).join("\n")}\n`);
const positives = y.filter(Boolean).length;
const sampleWeights = y.map((label) => (label ? 0.5 / positives : 0.5 / (y.length - positives)));
const fitted = fitLogistic(x, y, { l2: Number(args.l2), sampleWeights, iterations: 20 });
const head0: AddresseeHead = { weights: fitted.weights.map((w) => Math.round(w * 1e4) / 1e4), bias: Math.round(fitted.bias * 1e4) / 1e4, threshold: 0 };

// A row blocks at `at` when one of its windows scores above it and (with the head) is addressed to a model above `t`.
const blocks = (row: ScannedRow, at: number, t?: number) => row.windows.some((w) => w.score > at && (t === undefined || addresseeScore(head0, w.vector) > t));
const firing = scanned.filter((row) => row.attack && blocks(row, 0.9));
const survivorScores = firing.map((row) => Math.max(...row.windows.filter((w) => w.score > 0.9).map((w) => addresseeScore(head0, w.vector)))).sort((a, b) => a - b);
const headThreshold = Math.floor((survivorScores[Math.floor((1 - Number(args.keep)) * survivorScores.length)]! - 1e-4) * 1e4) / 1e4;
const addressee: AddresseeHead = { ...head0, threshold: headThreshold };
// 3. The addressed rule, chosen on validation rows.
const ADDRESSED_FROM = 0.5;
const validationRows = Number(args.validation);
const extraSentences = personRequests(sentences.length + validationRows).slice(sentences.length);
const validation = await scanAsChunks([
  ...POOLS.flatMap((pool) => ranked(rows, pool).slice(perPool, perPool + validationRows).map((r) => ({ text: r.text, attack: r.attack, pool }))),
  ...extraSentences.map((sentence, i) => ({ text: placeInCarrier(carriers[(sentences.length + i) % carriers.length]!.text, sentence, (i * 0.37) % 1), attack: false, pool: "project-written person requests" })),
]);
// The server's own decision (data-channel.ts, decision.ts) on copies of each row's windows.
const blocksUnder = (row: ScannedRow, rule: DataChannelRule) => actionUnderRule(row, rule) === "block";
const ruleWith = (head?: number): DataChannelRule => ({ threshold, addressee: { ...head0, threshold: headThreshold }, ...(head === undefined ? {} : { addressed: { head, threshold: ADDRESSED_FROM } }) });
const blockedShare = (list: ScannedRow[], head?: number) => list.filter((row) => blocksUnder(row, ruleWith(head))).length / list.length;
const validationBenign = validation.filter((row) => !row.attack);
const benignWithout = blockedShare(validationBenign);
let addressedHead = 1;
for (let h = 0.99; h >= 0.6 - 1e-9; h -= 0.01) {
  if (blockedShare(validationBenign, h) > benignWithout + Number(args["addressed-cost"])) break;
  addressedHead = Math.round(h * 100) / 100;
}
const addressed: AddressedRule = { head: addressedHead, threshold: ADDRESSED_FROM };
const validationGroups = [...new Set(validation.map((row) => row.pool))];
const addressedByPool = Object.fromEntries(
  validationGroups.map((pool) => {
    const some = validation.filter((row) => row.pool === pool);
    return [pool, { rows: some.length, attack: some[0]!.attack, blockedWithout: round(blockedShare(some)), blockedWith: round(blockedShare(some, addressedHead)) }];
  }),
);

const groups = [...new Set(scanned.map((row) => row.pool))];
const headByPool = Object.fromEntries(
  groups.map((pool) => {
    const some = scanned.filter((row) => row.pool === pool);
    return [pool, { rows: some.length, blockedWithout: round(some.filter((row) => blocks(row, 0.9)).length / some.length), blockedWith: round(some.filter((row) => blocks(row, 0.9, headThreshold)).length / some.length) }];
  }),
);

const fit = {
  rows: scored.length,
  perPool,
  targetFpr,
  rocAuc: round(rocAuc(scored)),
  tprAtTargetFpr: round(tprAtFpr(scored, targetFpr)),
  userThresholdTpr: round(scored.filter((r) => r.attack && r.score > 0.9).length / scored.filter((r) => r.attack).length),
  byPool,
  addressee: { windows: x.length, positives, positiveWindows: args.positives, personRows: personRows.length, modelRows: modelRows.length, tauRows: tauRows.length, l2: Number(args.l2), keep: Number(args.keep), byPool: headByPool },
  addressed: { validationRowsPerPool: validationRows, cost: Number(args["addressed-cost"]), byPool: addressedByPool },
  commit: gitCommit(),
  /** The lexical model whose scores the rule was fitted on (the model card says so when it has changed since). */
  lexicalModel: lexicalFingerprint(readFitted().lexical),
  note: "training rows; the lexical model was fitted on firewall-train-v2, so its rows flatter these figures",
};
console.log(`data-channel threshold ${threshold} (benign data rows above it: ${percent(caught(scored.filter((r) => !r.attack)))}; attacks above it: ${percent(caught(scored.filter((r) => r.attack)))}; above 0.9: ${percent(fit.userThresholdTpr)})`);
console.log(`addressee head: ${x.length} windows (${positives} injected), threshold ${headThreshold}`);
console.log(`| pool | rows | blocked at 0.9 | with the addressee head |\n|---|---|---|---|`);
for (const [pool, v] of Object.entries(headByPool)) console.log(`| ${pool} | ${v.rows} | ${percent(v.blockedWithout)} | ${percent(v.blockedWith)} |`);
console.log(`\naddressed rule: head above ${addressedHead} fires from ${ADDRESSED_FROM} (validation rows)\n| pool | rows | blocked without | with |\n|---|---|---|---|`);
for (const [pool, v] of Object.entries(addressedByPool)) console.log(`| ${pool} | ${v.rows} | ${percent(v.blockedWithout)} | ${percent(v.blockedWith)} |`);
writeFileSync(args.out ?? resolve(import.meta.dir, "../../models/sieve-firewall/data-channel.json"), `${JSON.stringify({ threshold, addressee, addressed, fit }, null, 2)}\n`);
if (!args.out) writeFirewallModelCard();
process.exit(0);

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
