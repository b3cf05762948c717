/**
 * npm run fit:firewall-lexical [-- --harmful-pairs] [--persona-prompts] [--task-prompts] [--v3-all | --v3-benign | --no-v3]
 *
 * Fits the firewall's lexical signal (src/firewall/lexical.ts) and writes
 * models/sieve-firewall/lexical-model.json (numbers only, no training text) and that folder's
 * MODEL_CARD.md (firewall-model-card.ts). Run it after fit:firewall:
 * its weight is chosen on the scores the shipped calibration gives.
 *
 * Rows: firewall-train-v2.jsonl and firewall-train.jsonl, firewall-train-v3-additions.jsonl's benign
 * rows and its direct-attack pools (V3_ATTACK_POOLS), the project-written examples with the
 * matched pairs (a harmless text and an attack on the same subject: what tells them apart is the
 * instruction, not the topic) and the built-in input patterns; every row windowed as the server
 * windows it (keptWindows). Each source group weighs the same within its label. Never
 * firewall-dev.jsonl.
 *
 *   1. Validation. Source groups are split into FOLDS by a hash of their name; the calibration
 *      rows (the fifth of the public rows set aside in firewall-training-rows.ts) of each fold are
 *      scored by a lexical model fitted without that fold's groups and without any calibration
 *      row, and combined with the shipped calibration's score of each of their windows:
 *      row score = max over windows of σ(logit(window score) + a · ℓ). Pooled ROC AUC and TPR at
 *      1% and 5% FPR for every a in WEIGHTS.
 *      With --harmful-pairs (an experiment, not shipped: docs/research/firewall-experiments.md), the
 *      project's harmful-request pairs join the rows, one source group per harm category, and each
 *      category is also scored by the fold that never saw it (a second table). With
 *      --persona-prompts (not shipped either), the project's 400 harmless persona and task prompts
 *      join the benign rows; with --task-prompts (not shipped), its instruction-and-input tasks.
 *      The report ends with each source's share of benign and of attack rows above 0.9.
 *   2. scoreWeight: the a with the highest TPR@1% + TPR@5% (0 switches the signal off).
 *   3. The lexical model refitted on every row, its weights stored as int8.
 *   4. Leave one cluster out (the model card's table over firewall-train-v2 and -v3-additions):
 *      for each cluster of attack pools that share templates, carriers or injected strings
 *      (scripts/train/firewall-clusters.json), a lexical model fitted without the cluster's rows
 *      and without the measured benign rows scores the cluster's attacks (at most LOSO_CAP a pool)
 *      against benign rows no fit here saw (v2's calibration fifth and half of v3's benign rows, at
 *      most LOSO_CAP a pool). Beside it: the calibration alone (which never saw v2 or v3) and the
 *      shipped lexical model (which saw the cluster's v2 rows and, for hijack and extraction, its
 *      v3 rows).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { libraryIndexInput } from "../../src/firewall/builtins";
import { CALIBRATION, sigmoid } from "../../src/firewall/calibration";
import { firewallEmbedderKey, firewallScanOptions } from "../../src/firewall/encoder";
import { LEXICAL_FEATURE_VERSION, LexicalScorer, lexicalFeatures, quantise, type LexicalModel } from "../../src/firewall/lexical";
import { BuiltinIndex, WorkspacePatterns } from "../../src/firewall/pattern-index";
import { planWindows } from "../../src/firewall/scan";
import { scoreInputWindows } from "../../src/firewall/scoring";
import { textSha } from "../../src/firewall/shipped-vectors";
import { DATASETS, FirstSightEmbedding, readLabelled, type LabelledRow } from "../eval/firewall-data";
import { percent, rocAuc, tprAtFpr } from "../eval/firewall-metrics";
import { seededRandom } from "../seeded-random";
import { encoderDataRows, keptWindows, pooledPublicRows, poolOf, projectRows } from "../train/firewall-training-rows";
import { detectionCell, FITTED_DIR, gitCommit, writeFirewallModelCard, type LexicalFit } from "./firewall-model-card";
import { HARMFUL_PAIR_CATEGORY, OWN_GROUP } from "./firewall-own-examples";

const OUT = join(FITTED_DIR, "lexical-model.json");
const BUCKETS = 1 << 18;
const FOLDS = 5;
const LOSO_CAP = 300;
const WEIGHTS = [0, 0.25, 0.5, 0.75, 1, 1.5, 2];
/** Plain SGD on the log loss; little L2, many epochs (chosen on the validation of step 1). */
const TRAINING = { epochs: 40, batch: 256, learningRate: 0.5, l2: 1e-6, seed: 14 };

const config = loadConfig([]);
const { readability } = firewallScanOptions(config);
const split = encoderDataRows();
/**
 * firewall-train-v3-additions' attacks of these pools join the fitted rows, with every benign row
 * (its hard negatives): short hijacks in ten languages and extraction queries are user-channel
 * attacks. Its agent and document pools are left out: their wrappers' words ("you are", "reply",
 * "instructions") weighed as attack words and doubled the trigger-word probes blocked
 * (research/firewall-experiments.md, *The lexical signal with v3's direct attacks*). Each row joins
 * its repository's source group, as v2's rows do, and is never scored by the validation (which
 * reads v2's fifth). Experiments: --v3-all (every v3 row), --v3-benign (its benign rows only),
 * --no-v3 (none: the lexical model shipped before 2026-11-29 23:00).
 */
const V3_ATTACK_POOLS = new Set(["fw3-constructed-short-hijack", "fw3-prompt-extraction"]);
const v3Selection = process.argv.includes("--no-v3") ? "none" : process.argv.includes("--v3-all") ? "all" : process.argv.includes("--v3-benign") ? "benign" : "benign and direct attacks";
const v3Rows =
  v3Selection === "none"
    ? []
    : readLabelled(join(DATASETS, "firewall-train-v3-additions.jsonl")).filter(
        (row) => !row.attack || v3Selection === "all" || (v3Selection !== "benign" && V3_ATTACK_POOLS.has(v3Pool(row.id))),
      );
/** A v3 row's pool: its id without the hash ("fw3-prompt-extraction-1a2b3c" → "fw3-prompt-extraction"). */
function v3Pool(id: string): string {
  return id.replace(/-[0-9a-f]+$/, "");
}
const encoder = [...split.encoder, ...v3Rows];
const { calibration } = split;
const { own, patterns } = projectRows({ matchedPairs: true, harmfulPairs: process.argv.includes("--harmful-pairs"), personaPrompts: process.argv.includes("--persona-prompts"), taskPrompts: process.argv.includes("--task-prompts") });
const HARM_GROUP = `${OWN_GROUP}: ${HARMFUL_PAIR_CATEGORY}`;

type Example = { index: Uint32Array; value: Float32Array; attack: boolean; weight: number };

/** Every kept window of every row, each row weighing 1 / (rows of its group and label), shared by its windows. */
function examplesOf(rows: LabelledRow[]): Example[] {
  const count = new Map<string, number>();
  for (const row of rows) count.set(`${row.attack}:${row.group}`, (count.get(`${row.attack}:${row.group}`) ?? 0) + 1);
  const examples: Example[] = [];
  for (const row of rows) {
    const windows = keptWindows(row, readability);
    for (const window of windows) examples.push({ ...lexicalFeatures(window, BUCKETS), attack: row.attack, weight: 1 / count.get(`${row.attack}:${row.group}`)! / windows.length });
  }
  // Attacks and benign text weigh the same in total; the mean weight is 1.
  for (const attack of [true, false]) {
    const side = examples.filter((e) => e.attack === attack);
    const total = side.reduce((sum, e) => sum + e.weight, 0);
    for (const e of side) e.weight *= examples.length / 2 / total;
  }
  return examples;
}

/** Logistic regression by mini-batch SGD over sparse features; L2 applied to the buckets a batch touches. */
function train(examples: Example[]): { weights: Float32Array; bias: number } {
  const { epochs, batch, learningRate, l2, seed } = TRAINING;
  const weights = new Float32Array(BUCKETS);
  let bias = 0;
  const random = seededRandom(seed);
  const order = examples.map((_, i) => i);
  // A batch's gradient, dense, with the buckets it touched (in first-touch order) to apply and clear.
  const gradient = new Float64Array(BUCKETS);
  const touched = new Int32Array(BUCKETS);
  const touchedInBatch = new Int32Array(BUCKETS); // the number of the last batch (from 1) that touched the bucket
  let batchNumber = 0;
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (let start = 0; start < order.length; start += batch) {
      let touchedCount = 0;
      let biasGradient = 0;
      batchNumber++;
      const members = order.slice(start, start + batch);
      for (const k of members) {
        const e = examples[k]!;
        let z = bias;
        for (let f = 0; f < e.index.length; f++) z += weights[e.index[f]!]! * e.value[f]!;
        const g = ((sigmoid(z) - (e.attack ? 1 : 0)) * e.weight) / members.length;
        biasGradient += g;
        for (let f = 0; f < e.index.length; f++) {
          const bucket = e.index[f]!;
          if (touchedInBatch[bucket] !== batchNumber) (touchedInBatch[bucket] = batchNumber), (touched[touchedCount++] = bucket);
          gradient[bucket] += g * e.value[f]!;
        }
      }
      bias -= learningRate * biasGradient;
      const decay = 1 - learningRate * l2 * members.length;
      for (let t = 0; t < touchedCount; t++) {
        const bucket = touched[t]!;
        weights[bucket] = (weights[bucket]! - learningRate * gradient[bucket]!) * decay;
        gradient[bucket] = 0;
      }
    }
  }
  return { weights, bias };
}

/** The model's fields but its weights (quantised only for storing; LexicalScorer takes float weights beside it). */
const modelOf = (fit: { weights: Float32Array; bias: number }, scoreWeight = 0): LexicalModel => ({ featureVersion: LEXICAL_FEATURE_VERSION, buckets: BUCKETS, scoreWeight, bias: fit.bias, weights: "", quantum: 0 });
const foldOf = (group: string) => textSha(group).charCodeAt(0) % FOLDS;

// 1. The shipped calibration's window scores of the calibration rows, without the lexical term.
console.error(`fit: embedding the windows of ${calibration.length} calibration rows …`);
const embedding = await FirstSightEmbedding.load(config);
const library = await libraryIndexInput(firewallEmbedderKey(config), (texts) => embedding.embedMany(texts));
const shipped = WorkspacePatterns.defaults(new BuiltinIndex(library.patterns, library.contrast, CALIBRATION, embedding.embedder.dimensions, LexicalScorer.off(BUCKETS)));
type Scored = { row: LabelledRow; windows: string[]; logits: number[] };
const windowsOf = (text: string) => planWindows([text], () => false, { budgetTokens: 0, windowTokens: CALIBRATION.windowTokens, readability }).windows;
const logitOf = (score: number) => Math.log(Math.max(score, 1e-12) / Math.max(1 - score, 1e-12));
async function scoreRows(rows: LabelledRow[]): Promise<Scored[]> {
  await embedding.embedMany(rows.flatMap((row) => windowsOf(row.text))); // one batched pass (cached on disk); the loop below reads the cache
  const out: Scored[] = [];
  for (const row of rows) {
    const windows = windowsOf(row.text);
    if (windows.length === 0) continue;
    const vectors = await embedding.embedMany(windows);
    const custom = embedding.customSpace ? await embedding.customSpace.embedMany(windows) : vectors;
    const logits = scoreInputWindows(shipped, windows, vectors, custom).map((w) => logitOf(w.best!.score));
    out.push({ row, windows, logits });
  }
  return out;
}
const scored = await scoreRows(calibration);
// The harmful-request pairs are training rows, but each category is a source group: scored by the
// fold that never saw it, they show whether the signal carries to a kind of harm it has not seen.
const harmScored = await scoreRows(own.filter((row) => row.group.startsWith(HARM_GROUP)));
embedding.save();

// 2. Validation: each fold's calibration rows scored by a lexical model that never saw their source groups.
const lexicalLogit = new Map<Scored, number[]>();
for (let fold = 0; fold < FOLDS; fold++) {
  const held = [...scored, ...harmScored].filter((s) => foldOf(s.row.group) === fold);
  if (held.length === 0) continue;
  console.error(`fit: fold ${fold + 1}/${FOLDS}: ${held.length} calibration rows …`);
  const fit = train(examplesOf([...encoder, ...own, ...patterns].filter((row) => foldOf(row.group) !== fold)));
  const scorer = new LexicalScorer(modelOf(fit), fit.weights);
  for (const s of held) lexicalLogit.set(s, s.windows.map((w) => scorer.logit(w)));
}
const validation = WEIGHTS.map((a) => {
  const rows = scored.map((s) => ({ attack: s.row.attack, score: Math.max(...s.logits.map((z, w) => z + a * lexicalLogit.get(s)![w]!)) }));
  return { scoreWeight: a, auc: rocAuc(rows), tpr1: tprAtFpr(rows, 0.01), tpr5: tprAtFpr(rows, 0.05), benignAbove09: rows.filter((r) => !r.attack && sigmoid(r.score) > 0.9).length / rows.filter((r) => !r.attack).length };
});
const harmValidation = WEIGHTS.map((a) => {
  const rowScore = (s: Scored) => Math.max(...s.logits.map((z, w) => z + a * lexicalLogit.get(s)![w]!));
  const benign = scored.filter((s) => !s.row.attack).map(rowScore);
  const attacks = harmScored.filter((s) => s.row.attack).map(rowScore);
  const twins = harmScored.filter((s) => !s.row.attack).map(rowScore);
  const atFpr = (fpr: number) => tprAtFpr([...attacks.map((score) => ({ attack: true, score })), ...benign.map((score) => ({ attack: false, score }))], fpr);
  return { scoreWeight: a, twinAuc: rocAuc([...attacks.map((score) => ({ attack: true, score })), ...twins.map((score) => ({ attack: false, score }))]), tpr1: atFpr(0.01), tpr5: atFpr(0.05) };
});
const chosen = validation.reduce((best, v) => (v.tpr1 + v.tpr5 > best.tpr1 + best.tpr5 + 1e-9 ? v : best));
// Where the rows above 0.9 come from, by source: long persona and task prompts are the signal's main
// cost on the benign side; the attack side shows whether a change of data costs the attacks in the same clothes.
const aboveByGroup = (a: number, attack: boolean) => {
  const byGroup = new Map<string, { above: number; rows: number }>();
  for (const s of scored.filter((x) => x.row.attack === attack)) {
    const entry = byGroup.get(s.row.group) ?? { above: 0, rows: 0 };
    entry.rows++;
    if (sigmoid(Math.max(...s.logits.map((z, w) => z + a * lexicalLogit.get(s)![w]!))) > 0.9) entry.above++;
    byGroup.set(s.row.group, entry);
  }
  return byGroup;
};
const aboveRecord: LexicalFit["aboveByGroup"] = [false, true].flatMap((attack) => {
  const [without, withChosen] = [aboveByGroup(0, attack), aboveByGroup(chosen.scoreWeight, attack)];
  return [...without].map(([group, w]) => ({ group, attack, rows: w.rows, without: w.above / w.rows, with: withChosen.get(group)!.above / w.rows }));
});

// 3. Final fit on every row.
console.error("fit: final lexical model on every row …");
const final = train(examplesOf([...encoder, ...calibration, ...own, ...patterns]));

// 4. Leave one cluster out.
const CLUSTERS: Record<string, string[]> = JSON.parse(readFileSync(join(import.meta.dir, "../train/firewall-clusters.json"), "utf8"));
const inCluster = (row: LabelledRow, cluster: string) => CLUSTERS[cluster]!.includes(poolOf(row) ?? row.group);
/** Half of v3's benign rows are measured, never fitted, by the cluster fits. */
const measuredV3Benign = (row: LabelledRow) => !row.attack && row.id.startsWith("fw3-") && textSha(`loso ${row.id}`).charCodeAt(0) % 2 === 0;
const pooled = pooledPublicRows(LOSO_CAP);
const losoBenign = await scoreRows([...calibration.filter((row) => !row.attack && poolOf(row)), ...pooled.filter(measuredV3Benign)]);
const finalScorer = new LexicalScorer(modelOf(final), final.weights);
const rowScore = (s: Scored, a: number, scorer?: LexicalScorer) => Math.max(...s.logits.map((z, w) => z + (scorer ? a * scorer.logit(s.windows[w]!) : 0)));
const metricsOf = (attacks: Scored[], benign: Scored[], score: (s: Scored) => number) => {
  const rows = [...attacks.map((s) => ({ attack: true, score: score(s) })), ...benign.map((s) => ({ attack: false, score: score(s) }))];
  return { rocAuc: round4(rocAuc(rows)), tprAt1: round4(tprAtFpr(rows, 0.01)), tprAt5: round4(tprAtFpr(rows, 0.05)) };
};
const loso: NonNullable<LexicalFit["loso"]> = { rowsPerPool: LOSO_CAP, benignRows: losoBenign.length, clusters: [] };
for (const cluster of Object.keys(CLUSTERS)) {
  const attacks = await scoreRows(pooled.filter((row) => row.attack && inCluster(row, cluster)));
  embedding.save();
  console.error(`fit: leaving out ${cluster} (${attacks.length} attack rows) …`);
  const fit = train(examplesOf([...encoder, ...own, ...patterns].filter((row) => !inCluster(row, cluster) && !measuredV3Benign(row))));
  const scorer = new LexicalScorer(modelOf(fit), fit.weights);
  loso.clusters.push({
    cluster,
    attacks: attacks.length,
    calibrationAlone: metricsOf(attacks, losoBenign, (s) => rowScore(s, 0)),
    leftOut: metricsOf(attacks, losoBenign, (s) => rowScore(s, chosen.scoreWeight, scorer)),
    shipped: metricsOf(attacks, losoBenign, (s) => rowScore(s, chosen.scoreWeight, finalScorer)),
  });
}
const stored: LexicalModel = {
  ...modelOf(final, chosen.scoreWeight),
  ...quantise(final.weights),
  fit: {
    // What the model card (firewall-model-card.ts) shows: the data, seed and settings, the commit, the validation.
    data: {
      public: `firewall-train-v2.jsonl + firewall-train.jsonl (rows not in v2)${v3Description()}`,
      publicRows: encoder.length + calibration.length,
      projectWritten: "scripts/fit/firewall-own-examples.ts with scripts/fit/firewall-own-pairs.jsonl, and the built-in input patterns",
      projectRows: own.length + patterns.length,
      calibrationRows: scored.length,
    },
    commit: gitCommit(),
    training: TRAINING,
    validation: validation.map((v) => ({ scoreWeight: v.scoreWeight, rocAuc: round4(v.auc), tprAt1: round4(v.tpr1), tprAt5: round4(v.tpr5) })),
    aboveByGroup: aboveRecord,
    loso,
  } satisfies LexicalFit,
};
writeFileSync(OUT, `${JSON.stringify(stored)}\n`);
writeFirewallModelCard();

const attacks = scored.filter((s) => s.row.attack).length;
console.log(`\n### Lexical signal: validation on ${scored.length} calibration rows (${attacks} attacks), each scored by a lexical model that never saw its source group\n`);
console.log("| a (scoreWeight) | ROC AUC | TPR@1% FPR | TPR@5% FPR | benign rows above 0.9 |\n|---|---|---|---|---|");
for (const v of validation) console.log(`| ${v.scoreWeight}${v === chosen ? " ← shipped" : ""} | ${v.auc.toFixed(3)} | ${percent(v.tpr1)} | ${percent(v.tpr5)} | ${percent(v.benignAbove09)} |`);
for (const attack of [false, true]) {
  console.log(`\n${attack ? "Attack" : "Benign"} calibration rows above 0.9 by source group, a = 0 → a = ${chosen.scoreWeight} (groups with any): ${aboveRecord
    .filter((g) => g.attack === attack && g.without + g.with > 0)
    .map((g) => `${g.group} ${percent(g.without)} → ${percent(g.with)} (${g.rows})`)
    .join("; ")}.`);
}
if (harmScored.length > 0) {
  console.log(`\n### Harmful requests (${harmScored.length} rows of the project's pairs), each category scored by a lexical model that never saw it\n`);
  console.log("ROC AUC against their harmless twins; TPR at the thresholds where 1% / 5% of the calibration rows' benign rows score above.\n");
  console.log("| a | ROC AUC vs twins | TPR@1% FPR | TPR@5% FPR |\n|---|---|---|---|");
  for (const v of harmValidation) console.log(`| ${v.scoreWeight} | ${v.twinAuc.toFixed(3)} | ${percent(v.tpr1)} | ${percent(v.tpr5)} |`);
}
console.log(`\n### Leave one cluster out: each cluster's attacks (at most ${LOSO_CAP} a pool) against ${loso.benignRows} benign rows no fit saw (ROC AUC / TPR@1% / TPR@5%)\n`);
console.log("| cluster | attacks | calibration alone | lexical fitted without the cluster | shipped lexical model |\n|---|---|---|---|---|");
for (const c of loso.clusters) console.log(`| ${c.cluster} | ${c.attacks} | ${detectionCell(c.calibrationAlone)} | ${detectionCell(c.leftOut)} | ${detectionCell(c.shipped)} |`);
const quantised = new LexicalScorer(stored);
const drift = Math.max(...scored.slice(0, 500).flatMap((s) => s.windows.map((w) => Math.abs(quantised.logit(w) - finalScorer.logit(w)))));
console.log(`\nwrote models/sieve-firewall/lexical-model.json and MODEL_CARD.md: ${BUCKETS} buckets, int8 (largest logit change from quantising, 500 rows: ${drift.toFixed(3)}), scoreWeight ${chosen.scoreWeight}`);

function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

function v3Description(): string {
  if (v3Selection === "none") return "";
  if (v3Selection === "all") return " + firewall-train-v3-additions.jsonl";
  if (v3Selection === "benign") return " + firewall-train-v3-additions.jsonl (benign rows)";
  return ` + firewall-train-v3-additions.jsonl (benign rows; attacks of its pools ${[...V3_ATTACK_POOLS].map((pool) => pool.replace(/^fw3-/, "")).join(", ")})`;
}
