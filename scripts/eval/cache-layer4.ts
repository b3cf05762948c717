/**
 * `bun scripts/eval/cache-layer4.ts`: could the semantic cache compare prompts in the firewall's
 * space, so that a request-path run could stop after layer 4 (issue #24's first lever)? An
 * experiment, not a check of the product: docs/performance.md reports its figures and
 * research/performance-history.md its run.
 *
 * Three spaces, each read from the same int8 run of every text: the model's own vector (mean of the
 * last layer, what the cache stores), the firewall's view (mean of layer 4), and a linear map from
 * the layer-4 mean to the final vector (ridge, fitted here on texts of the firewall's training files
 * that are not in the cache's sets). For the cache's dev sets, every query's nearest stored entry by
 * cosine alone (no guard, no binary pre-filter): correct hits at the lowest threshold whose wrong
 * hits stay within a budget. For the adversarial set, the ROC AUC separating the pairs to serve from
 * the pairs to refuse.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { configWith } from "../../src/config";
import { loadEmbedder } from "../../src/server";

const datasets = resolve(import.meta.dir, "../../../shared/datasets");
const DIMS = 384;
const WRONG_BUDGETS = [0.005, 0.01, 0.02, 0.05];
const SPACES = ["final layer", "layer 4", "layer 4, mapped"] as const;
/** Ridge penalty of the map; every training text at most this long (the model reads 256 tokens). */
const RIDGE = 1e-2;
const MAX_FIT_CHARS = 600;
const FIT_TEXTS = 12_000;

const embedder = await loadEmbedder(configWith({}));
const readJsonl = (path: string) => readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line));
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
};
/** Per text: [final, layer 4]. */
async function embed(texts: string[]): Promise<Float32Array[][]> {
  const out: Float32Array[][] = [];
  for (let i = 0; i < texts.length; i += 64) out.push(...(await embedder.embedManyViews(texts.slice(i, i + 64), { priority: "bulk" })));
  return out;
}

const cacheFiles = ["cache-dev.jsonl", "cache-dev-qqp.jsonl"].map((name) => resolve(datasets, name));
const cacheTexts = new Set(cacheFiles.flatMap((file) => readJsonl(file).flatMap((pair) => [pair.stored, pair.query])));

// The map: ridge regression from [layer 4, 1] to the final vector, solved by Cholesky.
const fitTexts = ["firewall-train.jsonl", "firewall-train-v2.jsonl", "firewall-train-v3-additions.jsonl"]
  .flatMap((name) => readJsonl(resolve(datasets, name)).map((row) => row.text as string))
  .filter((text) => !cacheTexts.has(text) && text.length < MAX_FIT_CHARS && /[a-z]{3}/i.test(text))
  .filter((_, i) => i % 3 === 0)
  .slice(0, FIT_TEXTS);
const fitted = await embed(fitTexts);
const P = DIMS + 1;
const gram = new Float64Array(P * P);
const cross = new Float64Array(P * DIMS);
for (const [final, layer4] of fitted) {
  const x = [...layer4!, 1];
  for (let i = 0; i < P; i++) {
    for (let j = 0; j < P; j++) gram[i * P + j]! += x[i]! * x[j]!;
    for (let j = 0; j < DIMS; j++) cross[i * DIMS + j]! += x[i]! * final![j]!;
  }
}
for (let i = 0; i < P; i++) gram[i * P + i]! += RIDGE;
const chol = new Float64Array(P * P);
for (let i = 0; i < P; i++) {
  for (let j = 0; j <= i; j++) {
    let sum = gram[i * P + j]!;
    for (let k = 0; k < j; k++) sum -= chol[i * P + k]! * chol[j * P + k]!;
    chol[i * P + j] = i === j ? Math.sqrt(sum) : sum / chol[j * P + j]!;
  }
}
const weights = new Float64Array(P * DIMS);
for (let c = 0; c < DIMS; c++) {
  const z = new Float64Array(P);
  for (let i = 0; i < P; i++) {
    let sum = cross[i * DIMS + c]!;
    for (let k = 0; k < i; k++) sum -= chol[i * P + k]! * z[k]!;
    z[i] = sum / chol[i * P + i]!;
  }
  for (let i = P - 1; i >= 0; i--) {
    let sum = z[i]!;
    for (let k = i + 1; k < P; k++) sum -= chol[k * P + i]! * weights[k * DIMS + c]!;
    weights[i * DIMS + c] = sum / chol[i * P + i]!;
  }
}
const mapped = (layer4: Float32Array) => {
  const y = new Float32Array(DIMS);
  for (let i = 0; i < P; i++) {
    const x = i < DIMS ? layer4[i]! : 1;
    for (let c = 0; c < DIMS; c++) y[c]! += x * weights[i * DIMS + c]!;
  }
  const norm = Math.hypot(...y);
  return y.map((v) => v / norm);
};
/** A text's three vectors, in SPACES' order. */
const spaces = async (texts: string[]) => (await embed(texts)).map(([final, layer4]) => [final!, layer4!, mapped(layer4!)]);
const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;

console.log(`# The cache in the firewall's space\n`);
console.log(`Linear map fitted on ${fitted.length} training texts: median cosine to the final vector ${median(fitted.map(([final, layer4]) => dot(final!, mapped(layer4!)))).toFixed(3)} on them.\n`);
console.log(`| set | space | ${WRONG_BUDGETS.map((budget) => `correct at ≤ ${budget * 100}% wrong`).join(" | ")} |`);
console.log(`| --- | --- | ${WRONG_BUDGETS.map(() => "---:").join(" | ")} |`);
for (const file of cacheFiles) {
  const pairs = readJsonl(file) as { stored: string; query: string }[];
  // Paraphrase groups: connected components of the pairs (some sets chain them).
  const parent = new Map<string, string>();
  const find = (text: string): string => (parent.get(text) === text ? text : find(parent.get(text)!));
  for (const pair of pairs) for (const text of [pair.stored, pair.query]) if (!parent.has(text)) parent.set(text, text);
  for (const pair of pairs) parent.set(find(pair.stored), find(pair.query));
  const stored = [...new Set(pairs.map((pair) => pair.stored))];
  const storedVectors = await spaces(stored);
  const queryVectors = await spaces(pairs.map((pair) => pair.query));
  const agreement = storedVectors.map((vectors) => dot(vectors[0]!, vectors[2]!));
  for (let space = 0; space < SPACES.length; space++) {
    const nearest = pairs.map((pair, q) => {
      let same = -1;
      let other = -1;
      for (let s = 0; s < stored.length; s++) {
        const cosine = dot(queryVectors[q]![space]!, storedVectors[s]![space]!);
        if (find(stored[s]!) === find(pair.query)) same = Math.max(same, cosine);
        else other = Math.max(other, cosine);
      }
      return { same, other };
    });
    const cells = WRONG_BUDGETS.map((budget) => {
      for (let threshold = 0.6; threshold <= 1; threshold += 0.0025) {
        let correct = 0;
        let wrong = 0;
        for (const { same, other } of nearest) if (Math.max(same, other) >= threshold) same >= other ? correct++ : wrong++;
        if (wrong / nearest.length <= budget) return `${((100 * correct) / nearest.length).toFixed(1)}% (t = ${threshold.toFixed(3)})`;
      }
      return "–";
    });
    const label = space === 2 ? `${SPACES[space]} (median cosine to final ${median(agreement).toFixed(3)})` : SPACES[space];
    console.log(`| ${file.split("/").pop()} | ${label} | ${cells.join(" | ")} |`);
  }
}

const adversarial = readJsonl(resolve(import.meta.dir, "cache-adversarial.jsonl")) as { stored: string; query: string; expect: "hit" | "miss" }[];
const adversarialVectors = await spaces(adversarial.flatMap((pair) => [pair.stored, pair.query]));
console.log(`\n| adversarial set (${adversarial.length} pairs) | ROC AUC, pairs to serve against pairs to refuse |\n| --- | ---: |`);
for (let space = 0; space < SPACES.length; space++) {
  const serve: number[] = [];
  const refuse: number[] = [];
  adversarial.forEach((pair, i) => (pair.expect === "hit" ? serve : refuse).push(dot(adversarialVectors[2 * i]![space]!, adversarialVectors[2 * i + 1]![space]!)));
  let auc = 0;
  for (const a of serve) for (const b of refuse) auc += a > b ? 1 : a === b ? 0.5 : 0;
  console.log(`| ${SPACES[space]} | ${(auc / (serve.length * refuse.length)).toFixed(3)} |`);
}
process.exit(0);
