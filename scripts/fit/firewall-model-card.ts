/**
 * models/sieve-firewall/MODEL_CARD.md: what the firewall's fitted files were made from, how, and
 * what they measured. It is rendered from the `fit` record each fit writes into its own file, so
 * fit:firewall and fit:firewall-lexical rewrite it, and a test checks that the committed card is
 * the one the committed files give.
 *
 *   bun scripts/fit/firewall-model-card.ts    render it again by hand
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { markdownTable } from "../bench/stats";
import { percent } from "../eval/firewall-metrics";
import { DATA_SOURCES } from "../train/model-card";

/** Where the fits write and the server reads (bundled into the executable by the imports of src/firewall/). */
export const FITTED_DIR = resolve(import.meta.dir, "../../models/sieve-firewall");

/** What the lexical signal and the data channel's rule add to the trained model's sources (shared/datasets/README.md). */
const V3_SOURCE = [
  "firewall-train-v3-additions.jsonl",
  "lexical signal: every benign pool and the attacks of its constructed-short-hijack and prompt-extraction pools; data channel's rule: its injecagent, agentdojo and constructed-agent pools",
  "InjecAgent via enkryptai/xInjectAgent (MIT), AgentDojo (MIT), Agent Security Bench (MIT), tau-bench (MIT), prompt-extraction (MIT), BFCL (Apache-2.0), FuzzyAI (Apache-2.0), WebArena (Apache-2.0), CLINC (CC-BY-3.0), XQuAD and xSID (CC-BY-SA-4.0), fabric and unnatural-instructions (MIT), cheatsheets (CC0-1.0), and constructed rows wrapping those (their licences, with CC0-1.0 phrases)",
];

/** calibration.json's `fit` record (scripts/fit/firewall.ts). */
export type CalibrationFit = {
  train: string;
  rows: number;
  projectWrittenExamples: number;
  commit: string;
  settings: { shippedForm: string; headL2: number; rankPenalty: number; anchors: string; singleAnchors: string };
  chosen: string;
  validation: { signal: string; meanTprAt1: number; meanTprAt5: number; bySource: Record<string, { tprAt1: number; tprAt5: number }> }[];
};

/** lexical-model.json's `fit` record (scripts/fit/firewall-lexical.ts). */
export type LexicalFit = {
  data: { public: string; publicRows: number; projectWritten: string; projectRows: number; calibrationRows: number };
  commit: string;
  training: { epochs: number; batch: number; learningRate: number; l2: number; seed: number };
  validation: { scoreWeight: number; rocAuc: number; tprAt1: number; tprAt5: number }[];
  /** Share of each source group's calibration rows above 0.9, without the lexical term and with it at the chosen weight. */
  aboveByGroup: { group: string; attack: boolean; rows: number; without: number; with: number }[];
  /** Leave one cluster of v2/v3 attack pools out (fit:firewall-lexical, step 4); fits before 2026-11-30 lack it. */
  loso?: { rowsPerPool: number; benignRows: number; clusters: { cluster: string; attacks: number; calibrationAlone: DetectionFigures; leftOut: DetectionFigures; shipped: DetectionFigures }[] };
};

export type DetectionFigures = { rocAuc: number; tprAt1: number; tprAt5: number };

/** data-channel.json's `fit` record (scripts/fit/firewall-data-channel.ts). */
export type DataChannelFit = {
  rows: number;
  perPool: number;
  targetFpr: number;
  rocAuc: number;
  tprAtTargetFpr: number;
  userThresholdTpr: number;
  byPool: Record<string, { rows: number; above: number }>;
  /** The addressee head's fit: its windows and, per pool, rows blocking at 0.9 without it and with it. */
  addressee: {
    windows: number;
    positives: number;
    positiveWindows: string;
    personRows: number;
    tauRows: number;
    l2: number;
    keep: number;
    byPool: Record<string, { rows: number; blockedWithout: number; blockedWith: number }>;
  };
  /** The addressed rule's choice: validation rows per pool, the benign cost allowed, and per pool rows blocked without and with it. */
  addressed: { validationRowsPerPool: number; cost: number; byPool: Record<string, { rows: number; attack: boolean; blockedWithout: number; blockedWith: number }> };
  commit: string;
  /** lexicalFingerprint of the lexical model the rule was scored with (fits before 2026-11-30 lack it). */
  lexicalModel?: string;
  note: string;
};

type Fitted = {
  vectors: { model: string; dims: number; patterns: Record<string, unknown>; contrast: unknown[] };
  calibration: { model: string; windowTokens: number; window: Record<string, unknown>; head: { weights: number[]; lastLayerWeights?: number[] }; scale: { slope: number; offset: number }; fit: CalibrationFit };
  lexical: { buckets: number; scoreWeight: number; bias: number; weights: string; fit: LexicalFit };
  dataChannel: { threshold: number; addressee: { weights: number[]; threshold: number }; addressed: { head: number; threshold: number }; fit: DataChannelFit };
};

export function readFitted(dir = FITTED_DIR): Fitted {
  const read = (file: string) => JSON.parse(readFileSync(join(dir, file), "utf8"));
  return { vectors: read("builtin-vectors.json"), calibration: read("calibration.json"), lexical: read("lexical-model.json"), dataChannel: read("data-channel.json") };
}

export function firewallModelCard({ vectors, calibration, lexical, dataChannel }: Fitted): string {
  const cal = calibration.fit;
  const lex = lexical.fit;
  const dc = dataChannel.fit;
  const sources = Object.keys(cal.validation[0]?.bySource ?? {});
  const headInputs = calibration.head.weights.length + (calibration.head.lastLayerWeights?.length ?? 0);
  const above = (attack: boolean) =>
    lex.aboveByGroup
      .filter((g) => g.attack === attack && (g.without > 0 || g.with > 0))
      .map((g) => [g.group, g.rows, percent(g.without), percent(g.with)]);
  return `# sieve-firewall

The firewall's fitted files. They read the general model (\`models/all-MiniLM-L6-v2\`, the space
\`${vectors.model}\`); the firewall has no encoder of its own, because every fine-tuned one
measured worse on sources it never saw (docs/research/firewall-experiments.md). Numbers only: no training
text is stored. Licence: Apache-2.0 (this project); the data's licences are below. Written by
\`npm run fit:firewall\` (the first two files), then \`npm run fit:firewall-lexical\` and
\`npm run fit:firewall-data-channel\`; this card is rendered from their \`fit\` records.

| file | what |
|---|---|
| \`builtin-vectors.json\` | the ${Object.keys(vectors.patterns).length} built-in patterns' and ${vectors.contrast.length} contrast texts' vectors (${vectors.dims} dimensions, int16), used when the running model is \`${vectors.model}\` |
| \`calibration.json\` | the score: a window logit over the best pattern similarity and a logistic head on the window's vector (${headInputs} inputs), windows of ${calibration.windowTokens} tokens, the scale σ(${calibration.scale.slope}·Z + ${calibration.scale.offset}) |
| \`lexical-model.json\` | the lexical signal: a logistic model on hashed words and character n-grams (${lexical.buckets.toLocaleString("en")} buckets, int8), added to the score's logit with weight ${lexical.scoreWeight} |
| \`data-channel.json\` | the data channel's rule (tool results, documents, files): a window blocks there above min(its pattern's threshold, ${dataChannel.threshold}), and only when the addressee head (a logistic model on the window's vector, ${dataChannel.addressee.weights.length} weights) says it addresses an AI model rather than a person (above ${dataChannel.addressee.threshold}); where the head is confident (above ${dataChannel.addressed.head}) or the window's words address an AI reader outright (src/firewall/addressee-words.ts), a built-in fires from ${dataChannel.addressed.threshold}, the head holds nothing back and a warning blocks (docs/firewall.md, *Channels*) |

## How it was made

**Calibration** (\`scripts/fit/firewall.ts\`, commit \`${cal.commit}\`): fitted on ${cal.rows.toLocaleString("en")} rows of
\`${cal.train}\` and ${cal.projectWrittenExamples} project-written examples, each windowed as the server windows a message. Every fit
is a logistic regression solved by Newton's method, with no random draw, so a rerun gives the same file. Settings:
similarity form "${cal.settings.shippedForm}", head L2 ${cal.settings.headL2}, rank penalty ${cal.settings.rankPenalty}; scale anchors
${cal.settings.anchors}; custom and output patterns ${cal.settings.singleAnchors}. Validation chose "${cal.chosen}".

**Lexical signal** (\`scripts/fit/firewall-lexical.ts\`, commit \`${lex.commit}\`): ${lex.data.public}, ${lex.data.publicRows.toLocaleString("en")} rows;
${lex.data.projectWritten}, ${lex.data.projectRows.toLocaleString("en")} rows. SGD on the log loss, seed ${lex.training.seed} (a rerun gives the same file),
${lex.training.epochs} epochs, batch ${lex.training.batch}, learning rate ${lex.training.learningRate}, L2 ${lex.training.l2}. Its weight in the score was chosen
by the validation below.

**Data-channel rule** (\`scripts/fit/firewall-data-channel.ts\`, commit \`${dc.commit}\`): ${dc.perPool} rows from each of
${Object.keys(dc.byPool).length} pools of firewall-train-v2.jsonl and firewall-train-v3-additions.jsonl (injections inside
constructed documents and agent tool outputs, and benign ones), ${dc.rows.toLocaleString("en")} rows, chosen by a hash of their ids (no random
draw: a rerun gives the same file), scored by the calibration and the lexical signal of its commit${(dc.lexicalModel ? dc.lexicalModel === lexicalFingerprint(lexical) : dc.commit === lex.commit) ? "" : ` (the lexical signal has been refitted since, at \`${lex.commit}\`, and the rule not on its scores)`}; the threshold is the score that
${percent(dc.targetFpr)} of the benign rows exceed. The addressee head: the same rows and ${dc.addressee.personRows.toLocaleString("en")} more, untouched carriers of the
benign pools with a sentence addressed to a person placed in them (project-written, composed with a fixed seed:
\`scripts/fit/firewall-own-addressed-requests.ts\`)${dc.addressee.tauRows ? ", and " + dc.addressee.tauRows + " tau-bench rows" : ""}, each scanned as a document chunk; ${dc.addressee.windows.toLocaleString("en")} windows scoring above 0.5
(${dc.addressee.positives} of them the best window of an injected row), logistic regression by Newton's method, L2 ${dc.addressee.l2};
its threshold keeps ${percent(dc.addressee.keep)} of the training injections that block at 0.9 without it. The addressed rule's
confident score (${dataChannel.addressed.head}) is the lowest in 0.60–0.99 at which the benign rows of a validation split (the next
${dc.addressed.validationRowsPerPool} rows of each pool, in no fit above, and as many person-addressed rows more) blocked by the server's decision rise by at
most ${(100 * dc.addressed.cost).toFixed(1)} percentage points.

Never fitted or tuned on \`firewall-dev.jsonl\` (it is for reporting only).

## Data

${markdownTable(["data", "rows", "sources and licences"], [...DATA_SOURCES.map((source) => [...source]), V3_SOURCE])}

## Measured by the fits

Calibration: each attack source of \`${cal.train}\` is scored by a fit that never saw it; benign rows
are split in halves (fit on one, measured on the other). Detection at 1% / 5% false positives:

${markdownTable(
  ["signal", ...sources, "mean"],
  cal.validation.map((v) => [
    v.signal === cal.chosen ? `${v.signal} (shipped)` : v.signal,
    ...sources.map((s) => `${percent(v.bySource[s]!.tprAt1)} / ${percent(v.bySource[s]!.tprAt5)}`),
    `${percent(v.meanTprAt1)} / ${percent(v.meanTprAt5)}`,
  ]),
)}

Lexical signal: the ${lex.data.calibrationRows.toLocaleString("en")} calibration rows (a fifth of the public rows, never in a
fit), each scored by a lexical model that never saw its source group, combined with the
calibration's score at weight a:

${markdownTable(
  ["a", "ROC AUC", "TPR@1% FPR", "TPR@5% FPR"],
  lex.validation.map((v) => [v.scoreWeight === lexical.scoreWeight ? `${v.scoreWeight} (shipped)` : v.scoreWeight, v.rocAuc.toFixed(3), percent(v.tprAt1), percent(v.tprAt5)]),
)}

Calibration rows above 0.9 by source group, without the lexical term and with it (groups with any):

${markdownTable(["benign source", "rows", "without", "with"], above(false))}

${markdownTable(["attack source", "rows", "without", "with"], above(true))}
${lex.loso ? losoSection(lex.loso) : ""}
Data-channel threshold (${dc.note}): ROC AUC ${dc.rocAuc.toFixed(3)}, ${percent(dc.tprAtTargetFpr)} of attacks above
${dataChannel.threshold} (${percent(dc.userThresholdTpr)} above the user channel's 0.9). Rows above the threshold by pool:

${markdownTable(["pool", "rows", "above"], Object.entries(dc.byPool).map(([pool, p]) => [pool, p.rows, percent(p.above)]))}

Addressee head (scanned as document chunks): rows that block at 0.9 without the head and with it, by pool:

${markdownTable(["pool", "rows", "without", "with"], Object.entries(dc.addressee.byPool).map(([pool, p]) => [pool, p.rows, percent(p.blockedWithout), percent(p.blockedWith)]))}

Addressed rule (validation split, scanned as document chunks, the server's decision): rows blocked without the rule and with it, by pool:

${markdownTable(["pool", "rows", "without", "with"], Object.entries(dc.addressed.byPool).map(([pool, p]) => [`${pool} (${p.attack ? "injected" : "benign"})`, p.rows, percent(p.blockedWithout), percent(p.blockedWith)]))}

firewall-dev, the over-defense probe set, indirect injection and languages are measured by
\`npm run eval:firewall\`; docs/firewall.md (*Accuracy, measured*) carries the figures.
`;
}

/** The leave-one-cluster-out table over firewall-train-v2 and -v3-additions (issue #51's model-card figures). */
/** "0.928 / 53.8% / 68.5%": ROC AUC / TPR@1% / TPR@5%. */
export const detectionCell = (m: DetectionFigures) => `${m.rocAuc.toFixed(3)} / ${percent(m.tprAt1)} / ${percent(m.tprAt5)}`;

function losoSection(loso: NonNullable<LexicalFit["loso"]>): string {
  const mean = (pick: (c: (typeof loso.clusters)[number]) => DetectionFigures): DetectionFigures => {
    const avg = (f: (m: DetectionFigures) => number) => loso.clusters.reduce((sum, c) => sum + f(pick(c)), 0) / loso.clusters.length;
    return { rocAuc: avg((m) => m.rocAuc), tprAt1: avg((m) => m.tprAt1), tprAt5: avg((m) => m.tprAt5) };
  };
  return `
Leave one cluster out, over firewall-train-v2 and firewall-train-v3-additions: the attack pools that
share templates, carriers or injected strings form a cluster (scripts/train/firewall-clusters.json);
each cluster's attacks (at most ${loso.rowsPerPool} a pool, chosen by a hash of the id) against ${loso.benignRows.toLocaleString("en")} benign rows
no fit here saw (v2's calibration fifth and half of v3's benign rows, at most ${loso.rowsPerPool} a pool). ROC AUC /
TPR@1% FPR / TPR@5% FPR of the row's best window, scored by the calibration alone (fitted on
neither file), with a lexical model fitted without the cluster (and without those benign rows), and
with the shipped lexical model (which saw the cluster's v2 rows, and v3's hijack and extraction pools):

${markdownTable(
  ["left-out cluster", "attack rows", "calibration alone", "lexical fitted without the cluster", "shipped lexical model"],
  [...loso.clusters.map((c) => [c.cluster, c.attacks, detectionCell(c.calibrationAlone), detectionCell(c.leftOut), detectionCell(c.shipped)]), ["mean", "", detectionCell(mean((c) => c.calibrationAlone)), detectionCell(mean((c) => c.leftOut)), detectionCell(mean((c) => c.shipped))]],
)}
`;
}

/** A short hash of what the lexical model computes (its weights, bias and weight in the score): a refit that reproduces it keeps it. */
export function lexicalFingerprint(model: Pick<Fitted["lexical"], "weights" | "bias" | "scoreWeight">): string {
  return createHash("sha256").update(`${model.weights}|${model.bias}|${model.scoreWeight}`).digest("hex").slice(0, 12);
}

export function writeFirewallModelCard(dir = FITTED_DIR): void {
  writeFileSync(join(dir, "MODEL_CARD.md"), firewallModelCard(readFitted(dir)));
}

/**
 * HEAD, marked "+changes" when tracked files other than the fitted ones differ from it: the fits
 * record the code that made them (fit:firewall-lexical runs on the calibration fit:firewall just wrote).
 */
export function gitCommit(): string {
  const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: import.meta.dir }).stdout.toString().trim();
  const changed = git("status", "--porcelain", "--untracked-files=no", "--", ":/", ":(top,exclude)models/sieve-firewall");
  return `${git("rev-parse", "--short", "HEAD")}${changed ? "+changes" : ""}`;
}

if (import.meta.main) {
  writeFirewallModelCard();
  console.error(`wrote ${join(FITTED_DIR, "MODEL_CARD.md")}`);
}
