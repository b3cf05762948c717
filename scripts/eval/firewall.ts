/**
 * npm run eval:firewall [--baseline REF | --no-baseline] [--scores OUT.jsonl] [file.jsonl ...]
 *   default files: ../shared/datasets/firewall-dev.jsonl, scripts/eval/firewall-overdefense.jsonl,
 *   scripts/eval/firewall-harmful-requests.jsonl (the project's harmful requests and their harmless
 *   twins held out of every fit: content safety, which a prompt-attack firewall is not built for)
 *   and scripts/eval/firewall-task-prompts.jsonl (ordinary instruction-and-input tasks: classify,
 *   rewrite, format; a quarter of the project's task prompts, held out of every fit)
 *
 * Runs the server's input decision (scan.ts: windows, window budget, one matrix product,
 * calibration, thresholds, strongest action) over labelled JSONL files of {text, label:
 * attack|benign, source?, family?} with every built-in pattern at its default action and
 * threshold, each text as one user message seen for the first time. Prints markdown tables: ROC
 * AUC, TPR at 1% and 5% FPR, and TPR/FPR of the configured thresholds, overall, per source (and
 * per language within a source, as franc-min guesses it, where two languages have enough attacks) and
 * family; then a before/after summary.
 *
 * Two firewalls are measured in the same run:
 *   current   the firewall as configured (encoder.ts: layer 4 of the general model, or the
 *             SIEVE_FIREWALL_MODEL_DIR model) with the working tree's calibration.json;
 *   baseline  the calibration.json and lexical-model.json of git REF (default main), the
 *             calibration in the space it was fitted in (the general model's last layer or its
 *             layer-4 view), skipped when both equal the current ones.
 * Indirect injection (derived, evaluation only): every attack of the first file hidden in the
 * middle of a document made of three of that file's benign texts, against documents made of
 * benign texts only (the same carriers). Nothing here is ever fitted on.
 * --scores writes every row's score and action per firewall (JSONL), for reading or combining.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { franc } from "franc-min";
import { loadConfig } from "../../src/config";
import { libraryIndexInput } from "../../src/firewall/builtins";
import { CALIBRATION, type Calibration } from "../../src/firewall/calibration";
import { firewallEmbedderKey, firewallScanOptions } from "../../src/firewall/encoder";
import { LEXICAL, LEXICAL_FEATURE_VERSION, LexicalScorer, type LexicalModel } from "../../src/firewall/lexical";
import { FAMILY_DEFAULTS } from "../../src/firewall/library";
import { BuiltinIndex, WorkspacePatterns } from "../../src/firewall/pattern-index";
import { DATA_CHANNEL } from "../../src/firewall/data-channel";
import { planWindows, scanTexts, SECOND_LOOK_FROM, type ScanOptions, type ScanResult } from "../../src/firewall/scan";
import { assetPaths } from "../../src/runtime/assets";
import { ADDRESSED_KINDS, dataChannelRows } from "./firewall-data-channel-set";
import { DATASETS, FirstSightEmbedding, readLabelled, type LabelledRow } from "./firewall-data";
import { percent, rocAuc, tprAtFpr, type Scored } from "./firewall-metrics";

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { baseline: { type: "string", default: "main" }, "no-baseline": { type: "boolean", default: false }, scores: { type: "string" }, "data-channel-only": { type: "boolean", default: false } },
});
const files = positionals.length > 0 ? positionals : [join(DATASETS, "firewall-dev.jsonl"), ...["firewall-overdefense.jsonl", "firewall-harmful-requests.jsonl", "firewall-task-prompts.jsonl"].map((file) => resolve(import.meta.dir, file))];
// SIEVE_* variables apply (e.g. SIEVE_FIREWALL_MODEL_DIR for a firewall model of its own).
const config = loadConfig([]);
const options = firewallScanOptions(config);

type Setup = { name: string; describe: string; patterns: WorkspacePatterns; embedding: FirstSightEmbedding; calibration: Calibration; options: ScanOptions };

async function setup(name: string, describe: string, embedding: FirstSightEmbedding, calibration: Calibration, model: string, options: ScanOptions, lexical: LexicalScorer = LEXICAL): Promise<Setup> {
  const library = await libraryIndexInput(model, (texts) => embedding.embedMany(texts));
  const patterns = WorkspacePatterns.defaults(new BuiltinIndex(library.patterns, library.contrast, calibration, embedding.embedder.dimensions, lexical));
  return { name, describe, patterns, embedding, calibration, options };
}

/** A fitted file of the firewall as committed at `ref` (under src/firewall/ until 2026-11-28), or undefined when git cannot show it. */
function committedAt<T>(ref: string, file: string): T | undefined {
  for (const dir of ["models/sieve-firewall", "src/firewall"]) {
    const shown = Bun.spawnSync(["git", "show", `${ref}:${dir}/${file}`], { cwd: import.meta.dir });
    if (shown.exitCode === 0) return JSON.parse(shown.stdout.toString()) as T;
  }
  return undefined;
}

/** A fitted file's numbers, without the record of how it was fitted (a refit that only rewrote that record is the same firewall). */
function withoutFitRecord(fitted: object): object {
  const { fit: _record, ...numbers } = fitted as { fit?: unknown };
  return numbers;
}

/** The lexical signal as committed at `ref`: off where `ref` had none, or one of another feature version. */
function lexicalAt(ref: string): LexicalScorer {
  const model = committedAt<LexicalModel>(ref, "lexical-model.json");
  return model && model.featureVersion === LEXICAL_FEATURE_VERSION ? new LexicalScorer(model) : LexicalScorer.off(LEXICAL.model.buckets);
}

const setups: Setup[] = [await setup("current", `${firewallEmbedderKey(config)}, shipped calibration`, await FirstSightEmbedding.load(config), CALIBRATION, firewallEmbedderKey(config), options)];
if (!args["no-baseline"]) {
  const old = committedAt<Calibration>(args.baseline!, "calibration.json");
  const oldLexical = lexicalAt(args.baseline!);
  if (!old) console.log(`(no baseline: git cannot show the calibration.json of ${args.baseline})`);
  else if (Bun.deepEquals(withoutFitRecord(old), withoutFitRecord(CALIBRATION)) && Bun.deepEquals(withoutFitRecord(oldLexical.model), withoutFitRecord(LEXICAL.model))) console.log(`(no baseline: ${args.baseline} ships the same calibration and lexical model)`);
  else {
    // "<model>/<precision>[/<view>]": the view the baseline's calibration was fitted in, if any.
    const oldView = old.model.split("/")[2];
    const embedding = await FirstSightEmbedding.loadModel(config, assetPaths().modelDir, oldView);
    if (!embedding) {
      console.log(`(no baseline: ${args.baseline}'s calibration compares in ${oldView}, which the general model no longer outputs; compare with that commit's own eval:firewall output)`);
    } else {
      // "baseline" never matches the shipped vectors' model: the library is embedded afresh in the baseline's space.
      setups.push(await setup("baseline", `${old.model}, calibration.json and lexical-model.json of ${args.baseline}`, embedding, old, "baseline", { ...options, windowTokens: old.windowTokens }, oldLexical));
    }
  }
}

type Outcome = { row: LabelledRow; result: ScanResult; score: number; raw: number };

async function run(s: Setup, rows: LabelledRow[]): Promise<Outcome[]> {
  // Embed every window once up front (one batched pass, cached on disk); the scan below then runs per row as the server would.
  await s.embedding.embedMany(rows.flatMap((row) => planWindows([row.text], () => false, { ...s.options, budgetTokens: 0 }).windows));
  s.embedding.save();
  const outcomes: Outcome[] = [];
  for (const row of rows) {
    const result = await scanTexts([row.text], s.patterns, s.embedding, s.options);
    const raw = Math.max(-1, ...result.scores.map((w) => w.signals!.top));
    outcomes.push({ row, result, score: result.best?.score ?? 0, raw });
  }
  s.embedding.save();
  return outcomes;
}

/** Attacks hidden in the middle of benign documents, and the same documents without them. */
function indirectRows(rows: LabelledRow[]): LabelledRow[] {
  const benign = rows.filter((r) => !r.attack);
  const attacks = rows.filter((r) => r.attack);
  if (benign.length < 3) return [];
  const carrier = (i: number) => [benign[(i * 7) % benign.length]!, benign[(i * 7 + 3) % benign.length]!, benign[(i * 7 + 5) % benign.length]!].map((r) => r.text);
  const withAttack = attacks.map((attack, i) => {
    const [a, b, c] = carrier(i);
    return { ...attack, id: `indirect-${attack.id}`, text: `${a}\n\n${b} ${attack.text}\n\n${c}` };
  });
  const without = attacks.map((attack, i) => {
    const [a, b, c] = carrier(i);
    return { ...attack, id: `indirect-control-${attack.id}`, attack: false, family: null, text: `${a}\n\n${b}\n\n${c}` };
  });
  return [...withAttack, ...without].map((r) => ({ ...r, source: `indirect (${r.group})`, group: `indirect (${r.group})` }));
}

/** Fewest attacks of one language for a slice of its own (below it the rates are noise). */
const MIN_LANGUAGE_SLICE = 20;
/** ISO 639-3 code franc-min guesses for a text ("und" when too short to tell). */
const languageOf = (text: string) => franc(text, { minLength: 3 });

type Summary = { setup: string; slice: string; attacks: number; benign: number; auc: number; tpr1: number; tpr5: number; blockedTpr: number; blockedFpr: number; flaggedFpr: number };
const summaries: Summary[] = [];
const flagged = (o: Outcome) => o.result.verdict.action !== "allow";
const blocked = (o: Outcome) => o.result.verdict.action === "block";
const share = (list: Outcome[], test: (o: Outcome) => boolean) => (list.length ? list.filter(test).length / list.length : NaN);

function summarise(setup: string, slice: string, attacks: Outcome[], benign: Outcome[]): Summary {
  const scored: Scored[] = [...attacks, ...benign].map((o) => ({ score: o.score, attack: o.row.attack }));
  return {
    setup,
    slice,
    attacks: attacks.length,
    benign: benign.length,
    auc: rocAuc(scored),
    tpr1: tprAtFpr(scored, 0.01),
    tpr5: tprAtFpr(scored, 0.05),
    blockedTpr: share(attacks, blocked),
    blockedFpr: share(benign, blocked),
    flaggedFpr: share(benign, flagged),
  };
}

function report(s: Setup, file: string, outcomes: Outcome[]) {
  const rows = outcomes.map((o) => o.row);
  const skipped = outcomes.filter((o) => o.result.skipped > 0).length;
  console.log(`\n### ${s.name} firewall (${s.describe}): ${file} (${rows.length} rows: ${rows.filter((r) => r.attack).length} attacks, ${rows.filter((r) => !r.attack).length} benign)\n`);
  console.log(
    `Calibration fitted on ${(s.calibration as { fit?: { train?: string } }).fit?.train ?? "?"}; default thresholds ${Object.entries(FAMILY_DEFAULTS)
      .map(([f, d]) => `${f} ${d.action} > ${d.threshold}`)
      .join(", ")}; window budget ${options.budgetTokens} tokens (${skipped} rows sampled).\n`,
  );
  const header = ["slice", "attacks", "benign", "ROC AUC", "TPR@1% FPR", "TPR@5% FPR", "flagged TPR", "flagged FPR", "blocked TPR", "blocked FPR", "raw-cosine AUC", "raw TPR@1%", "raw TPR@5%"];
  console.log(`| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
  const benignAll = outcomes.filter((o) => !o.row.attack);
  const line = (name: string, attacks: Outcome[], benign: Outcome[]) => {
    const scored: Scored[] = [...attacks, ...benign].map((o) => ({ score: o.score, attack: o.row.attack }));
    const raw: Scored[] = [...attacks, ...benign].map((o) => ({ score: o.raw, attack: o.row.attack }));
    summaries.push(summarise(s.name, `${file}: ${name}`, attacks, benign));
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
  // Issue #51's dev target: JailbreakBench's harmful requests are content safety, not injections.
  const notJbb = (o: Outcome) => o.row.group !== "JailbreakBench";
  if (outcomes.some((o) => !notJbb(o))) line("all without JailbreakBench", outcomes.filter((o) => o.row.attack && notJbb(o)), benignAll.filter(notJbb));
  const sources = [...new Set(rows.map((r) => r.group))].map((group) => ({
    group,
    attacks: outcomes.filter((o) => o.row.attack && o.row.group === group),
    benign: outcomes.filter((o) => !o.row.attack && o.row.group === group),
  }));
  for (const { group, attacks, benign } of sources) {
    if (attacks.length > 0) line(`source ${group}${benign.length ? "" : " (vs all benign)"}`, attacks, benign.length ? benign : benignAll);
    else line(`source ${group} (benign only)`, [], benign);
  }
  // Languages within a source, as franc-min guesses them (short texts are often misread: only slices
  // with enough attacks are shown). The encoder is English-only; this shows what that costs.
  // Not the derived documents: their language is mostly their carriers'.
  for (const { group, attacks, benign } of sources) {
    if (benign.length === 0 || [...attacks, ...benign].some((o) => o.row.id.startsWith("indirect-"))) continue;
    const slices = [...Map.groupBy(attacks, (o) => languageOf(o.row.text))].filter(([, some]) => some.length >= MIN_LANGUAGE_SLICE);
    if (slices.length < 2) continue;
    for (const [language, some] of slices) line(`source ${group}, ${language} attacks (vs the source's benign)`, some, benign);
  }
  for (const family of [...new Set(rows.filter((r) => r.attack).map((r) => r.family ?? "none"))]) {
    line(`family ${family} (vs all benign)`, outcomes.filter((o) => o.row.attack && (o.row.family ?? "none") === family), benignAll);
  }

  // Threshold sweep: every pattern at threshold t; a row is flagged when its best score exceeds t.
  const sweep = [0.75, 0.8, 0.85, 0.9, 0.95];
  const sliceOf = (name: string, attacks: Outcome[], benign: Outcome[]) => ({ name, attacks, benign });
  const sweepSlices = [
    sliceOf("all", outcomes.filter((o) => o.row.attack), benignAll),
    ...sources.filter(({ attacks, benign }) => attacks.length > 0 && benign.length > 0).map(({ group, attacks, benign }) => sliceOf(group, attacks, benign)),
  ];
  console.log(`\nThreshold sweep (all patterns at threshold t; TPR / FPR):\n`);
  console.log(`| slice | ${sweep.map((t) => `t = ${t}`).join(" | ")} |\n|---|${sweep.map(() => "---").join("|")}|`);
  const rate = (list: Outcome[], t: number) => (list.length ? percent(list.filter((o) => o.score > t).length / list.length) : "–");
  for (const slice of sweepSlices) console.log(`| ${slice.name} | ${sweep.map((t) => `${rate(slice.attacks, t)} / ${rate(slice.benign, t)}`).join(" | ")} |`);

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
  const wrong = outcomes.filter((o) => !o.row.attack && blocked(o)).slice(0, 12);
  if (wrong.length > 0) console.log(`\nBenign rows blocked (first ${wrong.length}):\n${wrong.map((o) => `- [${o.row.group}] ${o.row.text.slice(0, 110).replace(/\s+/g, " ")} (${o.score.toFixed(3)})`).join("\n")}`);
}

/**
 * The data-channel dev set (firewall-data-channel-set.ts: written for the project), each row scanned
 * as a tool result or document (channel data) and, for comparison, as user text; per wrapper and kind.
 */
async function reportDataChannel(s: Setup): Promise<void> {
  const allRows = dataChannelRows();
  const rows = allRows.filter((row) => ADDRESSED_KINDS.includes(row.kind));
  await s.embedding.embedMany(allRows.flatMap((row) => planWindows([row.text], () => false, { ...s.options, budgetTokens: 0 }).windows));
  const scanned: { row: (typeof rows)[number]; data: boolean; user: boolean; score: number }[] = [];
  for (const row of allRows) {
    const data = await scanTexts([{ text: row.text, channel: "data" }], s.patterns, s.embedding, s.options);
    const user = await scanTexts([{ text: row.text, channel: "user" }], s.patterns, s.embedding, s.options);
    scanned.push({ row, data: data.verdict.action === "block", user: user.verdict.action === "block", score: data.best?.score ?? 0 });
  }
  s.embedding.save();
  console.log(`\n### Data channel (${s.name}; project-written set, ${rows.length} rows; data-channel threshold ${DATA_CHANNEL.threshold})\n`);
  console.log("| wrapper | injected blocked (data / as user text) | plain blocked (data / user) | human-addressed requests blocked (data / user) | ROC AUC |\n|---|---|---|---|---|");
  const rate = (list: typeof scanned, key: "data" | "user") => (list.length ? percent(list.filter((x) => x[key]).length / list.length) : "–");
  const wrappers = [...new Set(rows.map((r) => r.wrapper)), "all"];
  for (const wrapper of wrappers) {
    const some = scanned.filter((x) => (wrapper === "all" || x.row.wrapper === wrapper) && ADDRESSED_KINDS.includes(x.row.kind));
    const kind = (k: string) => some.filter((x) => x.row.kind === k);
    console.log(`| ${wrapper} | ${rate(kind("injected"), "data")} / ${rate(kind("injected"), "user")} | ${rate(kind("plain"), "data")} / ${rate(kind("plain"), "user")} | ${rate(kind("human-request"), "data")} / ${rate(kind("human-request"), "user")} | ${rocAuc(some.map((x) => ({ score: x.score, attack: x.row.attack }))).toFixed(3)} |`);
  }
  console.log(`\nInstructions about the answer that name no AI (${allRows.filter((r) => r.kind === "answer-instruction").length} rows), against requests about a reply addressed to a person (${allRows.filter((r) => r.kind === "reply-request").length}):\n`);
  console.log("| wrapper | answer instructions blocked (data / as user text) | reply requests to a person blocked (data / user) | ROC AUC of the two |\n|---|---|---|---|");
  for (const wrapper of wrappers) {
    const some = scanned.filter((x) => (wrapper === "all" || x.row.wrapper === wrapper) && (x.row.kind === "answer-instruction" || x.row.kind === "reply-request"));
    const kind = (k: string) => some.filter((x) => x.row.kind === k);
    console.log(`| ${wrapper} | ${rate(kind("answer-instruction"), "data")} / ${rate(kind("answer-instruction"), "user")} | ${rate(kind("reply-request"), "data")} / ${rate(kind("reply-request"), "user")} | ${rocAuc(some.map((x) => ({ score: x.score, attack: x.row.attack }))).toFixed(3)} |`);
  }
  for (const position of ["start", "middle", "end"]) {
    const some = scanned.filter((x) => x.row.position === position && x.row.kind === "injected");
    console.log(`injected at the ${position}: ${rate(some, "data")} blocked on the data channel, ${rate(some, "user")} as user text`);
  }
  const wrong = scanned.filter((x) => !x.row.attack && x.data);
  if (wrong.length > 0) console.log(`\nBenign data blocked:\n${wrong.map((x) => `- [${x.row.id}] ${x.row.text.slice(0, 110).replace(/\s+/g, " ")} (${x.score.toFixed(3)})`).join("\n")}`);
}

if (args["data-channel-only"]) {
  await reportDataChannel(setups[0]!);
  process.exit(0);
}

const inputs: { name: string; rows: LabelledRow[] }[] = files.map((file) => ({ name: file.split("/").pop()!, rows: readLabelled(file) }));
inputs.push({ name: `indirect (derived from ${inputs[0]!.name})`, rows: indirectRows(inputs[0]!.rows) });
const perRow: string[] = [];
for (const input of inputs) {
  for (const s of setups) {
    const outcomes = await run(s, input.rows);
    report(s, input.name, outcomes);
    for (const o of outcomes) perRow.push(JSON.stringify({ firewall: s.name, file: input.name, id: o.row.id, attack: o.row.attack, group: o.row.group, score: o.score, action: o.result.verdict.action }));
  }
}
if (args.scores) writeFileSync(args.scores, `${perRow.join("\n")}\n`);
await reportDataChannel(setups[0]!);

console.log(`\n### Before / after (same run; baseline = ${setups[1]?.describe ?? "none"})\n`);
console.log("| slice | firewall | ROC AUC | TPR@1% FPR | TPR@5% FPR | attacks blocked | benign blocked | benign flagged |\n|---|---|---|---|---|---|---|---|");
const headline = (slice: string) => slice.endsWith(": all") || slice.endsWith(": all without JailbreakBench") || /: source (deepset|JailbreakBench|overdefense [a-z-]+|indirect \(deepset\))/.test(slice);
for (const slice of [...new Set(summaries.map((s) => s.slice))].filter(headline)) {
  for (const s of summaries.filter((x) => x.slice === slice)) {
    const f = (x: number) => (Number.isNaN(x) ? "–" : x.toFixed(3));
    console.log(`| ${slice} | ${s.setup} | ${f(s.auc)} | ${percent(s.tpr1)} | ${percent(s.tpr5)} | ${percent(s.blockedTpr)} | ${percent(s.blockedFpr)} | ${percent(s.flaggedFpr)} |`);
  }
}
