/**
 * npm run fit:firewall [-- --all-forms] [--matched-pairs] [--harmful-pairs] [--task-prompts] [--encoder-split | train.jsonl]   (default ../shared/datasets/firewall-train.jsonl)
 *
 * --matched-pairs, --harmful-pairs, --task-prompts: add the project's matched pairs, harmful-request
 * pairs or task prompts to its examples (experiments of docs/research/firewall-experiments.md; the shipped
 * calibration has none of them).
 *
 * --v3: add every pool of firewall-train-v2 and firewall-train-v3-additions (attacks and hard benign
 * negatives) as source groups of their own, at most --per-pool rows each (a hash of the id decides);
 * --skip-validation: keep the head without the leave-one-source-out table (the v3 fit has ~60
 * groups; firewall_recipe.py head-loso measures them). Experiments of issue #51, not shipped.
 *
 * --encoder-split: fit on the fifth of firewall-train-v2/firewall-train that a trained firewall
 * encoder never saw (scripts/train/firewall-training-rows.ts); use it with SIEVE_FIREWALL_MODEL_DIR.
 *
 * Fits the firewall's calibration and writes two data files under models/sieve-firewall/ (numbers
 * only, no training text), then that folder's MODEL_CARD.md (firewall-model-card.ts):
 *   builtin-vectors.json  embeddings of the built-in patterns and contrast texts;
 *   calibration.json      the mapping from raw similarities to scores (see calibration.ts).
 *
 * Steps, on the training file plus the project-written examples (firewall-own-examples.ts),
 * every text windowed exactly as the server windows a message:
 *   1. Candidates: a window logit over raw similarities in several forms (max cosine, family
 *      maxima, the benign contrast term), alone or with a head (a logistic layer on the window
 *      embedding and, for a view of the general model, the same window's last-layer vector; L2
 *      strength HEAD_L2). Every weight is fitted ≥ 0 on a column oriented so the
 *      score rises with attack similarity. Every source weighs the same and attacks weigh as much
 *      as benign rows, so 1,700 rows of one password game do not drown 30 rows of another attack.
 *      A text counts as attack-like as its most attack-like window (two multiple-instance rounds).
 *   2. Validation, printed as a table: each attack source is left out in turn and scored by a fit
 *      that never saw it; benign rows are split in halves (fit on one, measured on the other).
 *   3. Shipped: the SHIPPED_FORM similarity form, with or without a head as validation decides.
 *   4. Scale: score 0.9 is exceeded by 1% of benign training rows and 0.8 by 5% (out of fold,
 *      each benign source weighted equally). Custom and output patterns: SINGLE_ANCHORS.
 */
import { writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../../src/config";
import { builtinMeta } from "../../src/firewall/builtins";
import { firewallEmbedderKey, firewallScanOptions } from "../../src/firewall/encoder";
import { CALIBRATION, type Calibration } from "../../src/firewall/calibration";
import { CONTRAST_TEXTS, CONTRAST_VERSION } from "../../src/firewall/contrast";
import { BUILTIN_PATTERNS, LIBRARY_VERSION } from "../../src/firewall/library";
import { BuiltinIndex, WorkspacePatterns } from "../../src/firewall/pattern-index";
import { scoreInputWindows } from "../../src/firewall/scoring";
import { encodeVector, decodeVector, textSha, type ShippedVectors } from "../../src/firewall/shipped-vectors";
import { subWindows, WINDOW_TOKENS } from "../../src/firewall/windows";
import { planWindows } from "../../src/firewall/scan";
import { DATASETS, FirstSightEmbedding, readLabelled, type LabelledRow } from "../eval/firewall-data";
import { percent, tprAtFpr } from "../eval/firewall-metrics";
import { fitLogistic, logitOf, type LogisticFit } from "./firewall-logistic";
import { encoderDataRows, pooledPublicRows } from "../train/firewall-training-rows";
import { FITTED_DIR, gitCommit, writeFirewallModelCard, type CalibrationFit } from "./firewall-model-card";
import { HARMFUL_PAIR_CATEGORY, OWN_GROUP, ownExamples, TASK_PROMPT_CATEGORY } from "./firewall-own-examples";

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { v3: { type: "boolean", default: false }, "per-pool": { type: "string", default: "100" }, "skip-validation": { type: "boolean", default: false }, "all-forms": { type: "boolean", default: false }, "encoder-split": { type: "boolean", default: false }, "matched-pairs": { type: "boolean", default: false }, "harmful-pairs": { type: "boolean", default: false }, "task-prompts": { type: "boolean", default: false } },
});
const OWN_EXAMPLES = ownExamples({ matchedPairs: flags["matched-pairs"], harmfulPairs: flags["harmful-pairs"], taskPrompts: flags["task-prompts"] });
/** The harmful-request pairs and the task prompts weigh as sources of their own: hundreds of them must not drown the other project-written examples. */
const ownGroupOf = (category: string) =>
  category.startsWith(HARMFUL_PAIR_CATEGORY) ? `${OWN_GROUP}: harmful requests` : category === TASK_PROMPT_CATEGORY ? `${OWN_GROUP}: ${TASK_PROMPT_CATEGORY}` : OWN_GROUP;
const trainFile = positionals[0] ?? join(DATASETS, "firewall-train.jsonl");
const trainName = flags["encoder-split"] ? "firewall-train-v2.jsonl + firewall-train.jsonl, the fifth kept out of the encoder's training" : `${basename(trainFile)}${flags.v3 ? ` + every pool of firewall-train-v2.jsonl and firewall-train-v3-additions.jsonl (at most ${flags["per-pool"]} rows each)` : ""}`;
/**
 * The head's L2 strength, fixed like SHIPPED_FORM. Validation used to pick among 0.01, 0.03, 0.1
 * and 0.3, whose mean detections on the training sources lie within 1–2 points of each other:
 * noise, so a refit's pick flipped when the vectors moved by cosine ~0.999 (the int8 layers'
 * change, docs/firewall.md) and the calibration could not be reproduced. 0.01 is what validation
 * chose for the shipped layer-4 space; validation still decides whether a head joins at all.
 */
const HEAD_L2 = 1e-2;
/**
 * The raw-similarity form shipped. The benign contrast term is kept although the training file
 * cannot show its worth (its benign rows are all English questions): it is what keeps
 * non-English and "password"-type ordinary prompts from scoring like attacks, and validation
 * shows it costs nothing on the training sources.
 */
const SHIPPED_FORM = "max cosine, contrast";
/** Z units lost per unit of raw similarity below the window's best pattern (see calibration.ts). */
const RANK_PENALTY = 25;
/** Scale anchors: score → share of benign rows allowed above it. */
const ANCHORS = { high: { score: 0.9, fpr: 0.01 }, low: { score: 0.8, fpr: 0.05 } };
/**
 * Custom and output-side patterns have no labelled data: one pattern, one topic. Their score is
 * anchored on what MiniLM cosine means: ~0.75 a close paraphrase (score 0.9, "balanced"),
 * ~0.6 the same subject in other words (score 0.8, "permissive"); a near-copy (≥ 0.9) scores ≥ 0.95.
 */
const SINGLE_ANCHORS = { high: { score: 0.9, cosine: 0.75 }, low: { score: 0.8, cosine: 0.6 } };

// SIEVE_* variables apply (e.g. SIEVE_FIREWALL_MODEL_DIR for a firewall model of its own).
const config = loadConfig([]);
const model = firewallEmbedderKey(config);
const embedding = await FirstSightEmbedding.load(config);
const embed = (texts: string[]) => embedding.embedMany(texts);

// 1. Library vectors, written first and read back quantised: the fit sees what the server uses.
const freshLibrary = await embed(BUILTIN_PATTERNS.map((p) => p.text));
const freshContrast = await embed(CONTRAST_TEXTS);
const shipped: ShippedVectors = {
  model,
  dims: embedding.embedder.dimensions,
  patterns: Object.fromEntries(BUILTIN_PATTERNS.map((p, i) => [p.slug, { sha: textSha(p.text), vector: encodeVector(freshLibrary[i]!) }])),
  contrast: CONTRAST_TEXTS.map((text, i) => ({ sha: textSha(text), vector: encodeVector(freshContrast[i]!) })),
};
writeFileSync(join(FITTED_DIR, "builtin-vectors.json"), JSON.stringify(shipped));
const libraryVector = new Map(BUILTIN_PATTERNS.map((p) => [p.slug, decodeVector(shipped.patterns[p.slug]!.vector)]));
const contrast = shipped.contrast.map((c) => decodeVector(c.vector));
const library = BUILTIN_PATTERNS.map((p) => ({ meta: builtinMeta(p), vector: libraryVector.get(p.slug)! }));
const dims = embedding.embedder.dimensions;

// 2. Training windows and their raw signals (a neutral calibration: signals do not depend on it).
// Windows the encoder cannot read are not scored by the server (src/embeddings/readability.ts), nor here, and neither
// are windows of invisible characters only (Unicode tag smuggling: no tokens); a row with none is left out.
const { readability } = firewallScanOptions(config);
const scorable = (text: string) => readability.readable(text) && /[\p{L}\p{N}\p{P}\p{S}]/u.test(text);
// The server's own planner, without a budget: the text folded as the provider's model reads it
// (compatibility forms, look-alike letters), what an encoding hides as windows of its own, each
// window once.
const windowsOf = (text: string) => planWindows([text], () => false, { budgetTokens: 0, windowTokens: WINDOW_TOKENS, readability }).windows.filter(scorable);
const rows: LabelledRow[] = [
  ...(flags["encoder-split"] ? encoderDataRows().calibration : readLabelled(trainFile)),
  ...(flags.v3 ? pooledPublicRows(Number(flags["per-pool"])) : []),
  ...OWN_EXAMPLES.map((example, i) => ({ id: `own-${i}`, text: example.text, attack: example.attack, family: null, source: OWN_GROUP, group: ownGroupOf(example.category) })),
].filter((row) => windowsOf(row.text).length > 0);
const isOwn = (unit: Unit) => unit.row.group.startsWith(OWN_GROUP);
const neutral: Calibration = {
  ...CALIBRATION,
  window: { topWeight: 0, familyWeights: CALIBRATION.families.map(() => 0), contrastWeight: 0, headWeight: 0, bias: 0 },
  head: { weights: [], bias: 0 },
};
const index = new BuiltinIndex(library, contrast, neutral, dims);
const defaults = WorkspacePatterns.defaults(index);

/** `vector`: what the head reads, the window's vector followed by its last-layer vector when the space has one (scan.ts, customSpace). */
type Window = { vector: Float32Array; familyMax: number[]; contrastMax: number; top: number };
type Unit = { row: LabelledRow; windows: Window[]; weight: number };
console.error(`fit: windowing and embedding ${rows.length} training rows …`);
// Every window and its second-look sub-windows: the server looks closer at suspicious windows
// (scan.ts), so the fit must know how fragments of ordinary texts score.
const windowTexts = rows.map((row) => windowsOf(row.text).flatMap((window) => [window, ...subWindows(window).filter(scorable)]));
const vectors = await embed(windowTexts.flat());
// The head also reads each window's last-layer vector when the firewall compares in a view of the
// general model (the same inference; leave-one-source-out on mosscap: TPR@1% 37.0% → 43.9%).
const lastLayer = embedding.customSpace;
const headVectors = lastLayer ? concatenated(vectors, await lastLayer.embedMany(windowTexts.flat())) : vectors;
embedding.save();
let offset = 0;
const units: Unit[] = rows.map((row, i) => {
  const from = offset;
  const own = vectors.slice(offset, (offset += windowTexts[i]!.length));
  const scores = scoreInputWindows(defaults, windowTexts[i]!, own);
  const windows = own.map((_, w) => {
    const { familyMax, contrastMax, top } = scores[w]!.signals!;
    return { vector: headVectors[from + w]!, familyMax, contrastMax, top };
  });
  return { row, windows, weight: 0 };
});
balanceWeights(units);
const groups = [...new Set(rows.map((r) => r.group))];

// 3. Candidate fits. Every weight is fitted ≥ 0 on a column whose sign makes "more attack-like"
//    larger, so the score stays increasing in each pattern similarity and decreasing in c.
type Column = "top" | "families" | "contrast" | "top-contrast";
type Variant = { name: string; columns: Column[]; headL2: number | undefined };
const similarityForms: { name: string; columns: Column[] }[] = [
  { name: "max cosine", columns: ["top"] },
  { name: "max cosine − contrast", columns: ["top-contrast"] },
  { name: "max cosine, contrast", columns: ["top", "contrast"] },
  { name: "family maxima, contrast", columns: ["families", "contrast"] },
  { name: "max cosine − contrast, family maxima", columns: ["top-contrast", "families"] },
];
// Validation decides only among SHIPPED_FORM's variants; --all-forms also validates the other forms for the table (5× the time).
const variants: Variant[] = similarityForms.filter((form) => flags["all-forms"] || form.name === SHIPPED_FORM).flatMap((form) => [
  { ...form, headL2: undefined },
  { name: `${form.name} + head (l2 ${HEAD_L2})`, columns: form.columns, headL2: HEAD_L2 },
]);
type Model = { head: LogisticFit | undefined; window: LogisticFit };
const inputPatterns = BUILTIN_PATTERNS.filter((p) => p.side === "input");
const ownAttacks = inputPatterns.map((p) => libraryVector.get(p.slug)!);
const ownAttacksForHead = lastLayer ? concatenated(ownAttacks, await lastLayer.embedMany(inputPatterns.map((p) => p.text))) : ownAttacks;
const contrastForHead = lastLayer ? concatenated(contrast, await lastLayer.embedMany(CONTRAST_TEXTS)) : contrast;

const headCache = new Map<string, LogisticFit>();
function fitModel(training: Unit[], variant: Variant): Model {
  let head: LogisticFit | undefined;
  if (variant.headL2 !== undefined) {
    // Heads depend only on the training rows and l2: shared by every similarity form.
    const key = `${variant.headL2}:${training.length}:${training[0]!.row.id}:${training.at(-1)!.row.id}:${training.filter((u) => u.row.attack).length}`;
    head = headCache.get(key) ?? fitHead(training, variant.headL2);
    headCache.set(key, head);
  }
  return { head, window: fitWindowLogit(training, variant.columns, head) };
}

function fitHead(training: Unit[], l2: number): LogisticFit {
  const x: number[][] = [];
  const y: boolean[] = [];
  const w: number[] = [];
  for (const unit of training) {
    for (const window of unit.windows) {
      x.push(Array.from(window.vector));
      y.push(unit.row.attack);
      w.push(unit.weight / unit.windows.length);
    }
  }
  // The project's own texts count as one more source on each side.
  const share = (attack: boolean) => {
    const side = training.filter((u) => u.row.attack === attack);
    return side.reduce((s, u) => s + u.weight, 0) / new Set(side.map((u) => u.row.group)).size;
  };
  for (const vector of ownAttacksForHead) (x.push(Array.from(vector)), y.push(true), w.push(share(true) / ownAttacks.length));
  for (const vector of contrastForHead) (x.push(Array.from(vector)), y.push(false), w.push(share(false) / contrast.length));
  return fitLogistic(x, y, { sampleWeights: w, l2, iterations: 25 });
}

function windowFeatures(window: Window, columns: Column[], head: LogisticFit | undefined): number[] {
  const row = columns.flatMap((column) => {
    switch (column) {
      case "top":
        return [window.top];
      case "families":
        return window.familyMax;
      case "contrast":
        return [-window.contrastMax];
      case "top-contrast":
        return [window.top - window.contrastMax];
    }
  });
  return head ? [...row, logitOf(head, window.vector)] : row;
}

/** The fitted weights as calibration.json's window block. */
function windowBlock(model: Model, columns: Column[]): Calibration["window"] {
  const block = { topWeight: 0, familyWeights: CALIBRATION.families.map(() => 0), contrastWeight: 0, headWeight: 0, bias: model.window.bias };
  let k = 0;
  for (const column of columns) {
    if (column === "families") block.familyWeights = model.window.weights.slice(k, (k += CALIBRATION.families.length));
    else {
      const w = model.window.weights[k++]!;
      if (column === "top") block.topWeight += w;
      if (column === "contrast") block.contrastWeight += w;
      if (column === "top-contrast") (block.topWeight += w), (block.contrastWeight += w);
    }
  }
  if (model.head) block.headWeight = model.window.weights[k]!;
  return { topWeight: round6(block.topWeight), familyWeights: block.familyWeights.map(round6), contrastWeight: round6(block.contrastWeight), headWeight: round6(block.headWeight), bias: round6(block.bias) };
}

function fitWindowLogit(training: Unit[], columns: Column[], head: LogisticFit | undefined): LogisticFit {
  const featuresOf = training.map((unit) => unit.windows.map((w) => windowFeatures(w, columns, head)));
  // Multiple-instance: a text is as suspicious as its most suspicious window. Start from the
  // window with the largest plain sum, refit once on the windows the first fit picks.
  let pick = (i: number) => argmax(featuresOf[i]!.map((f) => f.reduce((a, b) => a + b, 0)));
  let fit: LogisticFit | undefined;
  for (let round = 0; round < 2; round++) {
    const x = training.map((_, i) => featuresOf[i]![pick(i)]!);
    fit = fitLogistic(x, training.map((u) => u.row.attack), { sampleWeights: training.map((u) => u.weight), l2: 1e-4, nonNegative: true });
    const current = fit;
    pick = (i) => argmax(featuresOf[i]!.map((f) => logitOf(current, f)));
  }
  return fit!;
}

const textLogit = (model: Model, unit: Unit, columns: Column[]) => Math.max(...unit.windows.map((w) => logitOf(model.window, windowFeatures(w, columns, model.head))));

// 4. Validation: each attack source is left out in turn and scored by a fit that never saw it,
//    with the benign rows split in two halves (fit on one, threshold on the other).
const benignFold = (unit: Unit) => Number(textSha(unit.row.id + unit.row.text).charCodeAt(0) % 2);
type Validation = { variant: Variant; perGroup: Map<string, { tpr1: number; tpr5: number }>; meanTpr1: number; meanTpr5: number };
function validate(variant: Variant, score: (training: Unit[]) => (unit: Unit) => number): Validation {
  const perGroup = new Map<string, { tpr1: number; tpr5: number }>();
  for (const group of attackGroups()) {
    const results = [0, 1].map((fold) => {
      console.error(`fit: ${variant.name}: without ${group}, benign half ${fold} …`);
      const training = units.filter((u) => isOwn(u) || (u.row.attack ? u.row.group !== group : benignFold(u) !== fold));
      const scoreOf = score(training);
      const scored = units.filter((u) => !isOwn(u) && (u.row.attack ? u.row.group === group : benignFold(u) === fold)).map((u) => ({ score: scoreOf(u), attack: u.row.attack }));
      return { tpr1: tprAtFpr(scored, 0.01), tpr5: tprAtFpr(scored, 0.05) };
    });
    perGroup.set(group, { tpr1: mean(results.map((r) => r.tpr1)), tpr5: mean(results.map((r) => r.tpr5)) });
  }
  const all = [...perGroup.values()];
  return { variant, perGroup, meanTpr1: mean(all.map((r) => r.tpr1)), meanTpr5: mean(all.map((r) => r.tpr5)) };
}
const rawTop = (unit: Unit) => Math.max(...unit.windows.map((w) => w.top));
const skipped = (variant: Variant): Validation => ({ variant, perGroup: new Map(attackGroups().map((g) => [g, { tpr1: Number.NaN, tpr5: Number.NaN }])), meanTpr1: variant.headL2 === undefined ? 0 : 1, meanTpr5: 0 });
const validateOrSkip = (variant: Variant, score: (training: Unit[]) => (unit: Unit) => number) => (flags["skip-validation"] ? skipped(variant) : validate(variant, score));
const rawValidation = validateOrSkip({ name: "raw max cosine (no fit)", columns: ["top"], headL2: undefined }, () => rawTop);
const validations = variants.map((variant) =>
  validateOrSkip(variant, (training) => {
    const model = fitModel(training, variant);
    return (unit) => textLogit(model, unit, variant.columns);
  }),
);
// The similarity form (SHIPPED_FORM) and the head's strength (HEAD_L2) are design decisions;
// validation picks whether a head joins, on mean detection at 1% and 5% FPR.
const candidates = validations.filter((v) => v.variant.name.startsWith(SHIPPED_FORM) && !v.variant.name.slice(SHIPPED_FORM.length).includes(","));
const chosen = candidates.reduce((a, b) => (b.meanTpr1 + b.meanTpr5 > a.meanTpr1 + a.meanTpr5 + 1e-9 ? b : a));

// 5. Final fit on every training row; the scale is anchored on benign scores out of fold (two halves).
const final = fitModel(units, chosen.variant);
const benignOof = new Map<Unit, number>();
for (const fold of [0, 1]) {
  const model = fitModel(units.filter((u) => u.row.attack || isOwn(u) || benignFold(u) !== fold), chosen.variant);
  for (const unit of units.filter((u) => !u.row.attack && !isOwn(u) && benignFold(u) === fold)) benignOof.set(unit, textLogit(model, unit, chosen.variant.columns));
}
const scale = anchorScale((u) => benignOof.get(u)!);
const single = pointScale(SINGLE_ANCHORS);

const calibration: Calibration & { fit: CalibrationFit } = {
  model,
  libraryVersion: LIBRARY_VERSION,
  contrastVersion: CONTRAST_VERSION,
  windowTokens: WINDOW_TOKENS,
  families: CALIBRATION.families,
  window: windowBlock(final, chosen.variant.columns),
  head: {
    weights: final.head ? final.head.weights.slice(0, dims).map(round6) : [],
    bias: round6(final.head?.bias ?? 0),
    ...(final.head && lastLayer ? { lastLayerWeights: final.head.weights.slice(dims).map(round6) } : {}),
  },
  scale,
  rankPenalty: RANK_PENALTY,
  single,
  fit: {
    train: trainName,
    rows: rows.length - OWN_EXAMPLES.length,
    projectWrittenExamples: OWN_EXAMPLES.length,
    commit: gitCommit(),
    settings: {
      shippedForm: SHIPPED_FORM,
      headL2: HEAD_L2,
      rankPenalty: RANK_PENALTY,
      anchors: `score ${ANCHORS.high.score} exceeded by ${ANCHORS.high.fpr * 100}% and ${ANCHORS.low.score} by ${ANCHORS.low.fpr * 100}% of benign training rows (out of fold, each source weighted equally)`,
      singleAnchors: `score ${SINGLE_ANCHORS.high.score} at raw cosine ${SINGLE_ANCHORS.high.cosine}, ${SINGLE_ANCHORS.low.score} at ${SINGLE_ANCHORS.low.cosine}`,
    },
    chosen: chosen.variant.name,
    validation: [rawValidation, ...validations].map((v) => ({
      signal: v.variant.name,
      meanTprAt1: round6(v.meanTpr1),
      meanTprAt5: round6(v.meanTpr5),
      bySource: Object.fromEntries(attackGroups().map((g) => [g, { tprAt1: round6(v.perGroup.get(g)!.tpr1), tprAt5: round6(v.perGroup.get(g)!.tpr5) }])),
    })),
  },
};
writeFileSync(join(FITTED_DIR, "calibration.json"), `${JSON.stringify(calibration, null, 1)}\n`);
writeFirewallModelCard();

// Report.
console.log(`\n### Leave-one-source-out validation on ${trainName} (${rows.length} rows)\n`);
console.log("Each attack source is scored by a fit that never saw it; benign rows are split in halves (fit on one, measured on the other).\n");
const header = ["signal", ...attackGroups().flatMap((g) => [`${g} TPR@1%`, "TPR@5%"]), "mean TPR@1%", "mean TPR@5%"];
console.log(`| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
for (const v of [rawValidation, ...validations]) {
  const cells = attackGroups().flatMap((g) => [percent(v.perGroup.get(g)!.tpr1), percent(v.perGroup.get(g)!.tpr5)]);
  console.log(`| ${[v.variant.name + (v === chosen ? " ← shipped" : ""), ...cells, percent(v.meanTpr1), percent(v.meanTpr5)].join(" | ")} |`);
}
console.log(`\nwrote models/sieve-firewall/builtin-vectors.json (${BUILTIN_PATTERNS.length} patterns, ${CONTRAST_TEXTS.length} contrast texts), calibration.json and MODEL_CARD.md`);
console.log(`window logit: ${JSON.stringify(calibration.window)}`);
console.log(`scale: score = σ(${scale.slope.toFixed(3)}·Z + ${scale.offset.toFixed(3)}); single similarity: σ(${single.slope.toFixed(3)}·s + ${single.offset.toFixed(3)})`);

// — helpers —

function attackGroups(): string[] {
  return groups.filter((g) => !g.startsWith(OWN_GROUP) && units.some((u) => u.row.group === g && u.row.attack));
}

/** Attacks and benign weigh the same in total; within each side, every source weighs the same. */
function balanceWeights(all: Unit[]) {
  const count = new Map<string, number>();
  for (const u of all) count.set(`${u.row.attack}:${u.row.group}`, (count.get(`${u.row.attack}:${u.row.group}`) ?? 0) + 1);
  const sides = (attack: boolean) => new Set(all.filter((u) => u.row.attack === attack).map((u) => u.row.group)).size;
  for (const u of all) u.weight = all.length / 2 / sides(u.row.attack) / count.get(`${u.row.attack}:${u.row.group}`)!;
}

/**
 * σ(slope·z + offset) with score ANCHORS.high at the z exceeded by ANCHORS.high.fpr of benign rows
 * and ANCHORS.low at the z exceeded by ANCHORS.low.fpr, each benign source weighted equally.
 */
function anchorScale(scores: (unit: Unit) => number): { slope: number; offset: number } {
  return pointScale({
    high: { score: ANCHORS.high.score, cosine: benignQuantile(scores, ANCHORS.high.fpr) },
    low: { score: ANCHORS.low.score, cosine: benignQuantile(scores, ANCHORS.low.fpr) },
  });
}

/** The logistic σ(slope·x + offset) through two (x, score) points. */
function pointScale(points: { high: { score: number; cosine: number }; low: { score: number; cosine: number } }): { slope: number; offset: number } {
  const logit = (p: number) => Math.log(p / (1 - p));
  const slope = (logit(points.high.score) - logit(points.low.score)) / (points.high.cosine - points.low.cosine);
  return { slope: round6(slope), offset: round6(logit(points.high.score) - slope * points.high.cosine) };
}

/** The score z at which the mean over benign sources of "share of rows above z" is `fpr`. */
function benignQuantile(scores: (unit: Unit) => number, fpr: number): number {
  const bySource = new Map<string, number[]>();
  for (const u of units.filter((u) => !u.row.attack && !isOwn(u))) bySource.set(u.row.group, [...(bySource.get(u.row.group) ?? []), scores(u)]);
  const fprAt = (z: number) => mean([...bySource.values()].map((s) => s.filter((v) => v > z).length / s.length));
  const candidates = [...bySource.values()].flat().sort((a, b) => a - b);
  let low = 0;
  let high = candidates.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (fprAt(candidates[mid]!) <= fpr) high = mid;
    else low = mid + 1;
  }
  return candidates[low]!;
}

/** Each vector of `a` followed by the same-index vector of `b`. */
function concatenated(a: Float32Array[], b: Float32Array[]): Float32Array[] {
  return a.map((vector, i) => {
    const both = new Float32Array(vector.length + b[i]!.length);
    both.set(vector);
    both.set(b[i]!, vector.length);
    return both;
  });
}

function argmax(values: number[]): number {
  return values.reduce((best, v, i) => (v > values[best]! ? i : best), 0);
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
