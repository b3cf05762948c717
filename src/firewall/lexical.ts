/**
 * The lexical signal: a logistic model over hashed words, word pairs and character 3–5-grams of a
 * window, fitted on the firewall's training rows (scripts/fit/firewall-lexical.ts; weights in
 * lexical-model.json, numbers only). It reads what the general MiniLM cannot: the English-only
 * encoder sees German or Spanish as word pieces, but "ignoriere … Anweisungen" is plain to a
 * model of the words themselves. Its term joins the built-in patterns' score logits (scoring.ts:
 * a negative term every pattern's, a positive one only the closest pattern's family), with a weight
 * chosen by validation on sources the lexical model never saw; measured in docs/firewall.md.
 */
import fitted from "../../models/sieve-firewall/lexical-model.json";

export type LexicalModel = {
  /** Bumped whenever lexicalFeatures changes: weights of another version mean nothing. */
  featureVersion: number;
  buckets: number;
  /** Weight of the lexical logit in a built-in pattern's score logit (0: the signal is off). */
  scoreWeight: number;
  bias: number;
  /** int8 weights, one per bucket, base64; weight = int8 · quantum. */
  weights: string;
  quantum: number;
  fit?: unknown;
};

export const LEXICAL_FEATURE_VERSION = 1;
/** Windows are ~32 tokens; anything longer is cut so a feature vector stays bounded. */
const MAX_CHARS = 4000;
const WORD = /[\p{L}\p{M}\p{N}_]+/gu;
const GRAMS = [3, 4, 5];

// Scratch for counting a text's buckets without a Map (the scorer runs on every window of every
// request, history included): counts by bucket, and the buckets in first-seen order.
let counts = new Uint32Array(0);
let seen = new Uint32Array(0);

/** Sparse, L2-normalised features of a text: bucket → 1 + ln(count), buckets in first-seen order. */
export function lexicalFeatures(text: string, buckets: number): { index: Uint32Array; value: Float32Array } {
  if (counts.length < buckets) counts = new Uint32Array(buckets);
  const cut = text.slice(0, MAX_CHARS).toLowerCase();
  const words = cut.match(WORD) ?? [];
  // A word of length L adds at most 2 + 3·(L + 2) features: this bounds the distinct buckets.
  const most = 8 * words.length + 3 * cut.length;
  if (seen.length < most) seen = new Uint32Array(most);
  let size = 0;
  const add = (h: number) => {
    const bucket = h & (buckets - 1);
    if (counts[bucket]++ === 0) seen[size++] = bucket;
  };
  let previous = "";
  for (const word of words) {
    add(hash(1, word, 0, word.length));
    if (previous) add(hash(2, `${previous} ${word}`, 0, previous.length + 1 + word.length));
    previous = word;
    const padded = ` ${word} `;
    for (const n of GRAMS) for (let i = 0; i + n <= padded.length; i++) add(hash(3, padded, i, i + n));
  }
  const index = seen.slice(0, size);
  const value = new Float32Array(size);
  let norm = 0;
  for (let k = 0; k < size; k++) {
    value[k] = 1 + Math.log(counts[index[k]!]!);
    counts[index[k]!] = 0;
    norm += value[k]! * value[k]!;
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < value.length; i++) value[i]! /= norm;
  return { index, value };
}

/** FNV-1a over a kind tag and text[from, to), mixed so the low bits (the bucket) are well spread. */
function hash(kind: number, text: string, from: number, to: number): number {
  let h = (2166136261 ^ kind) >>> 0;
  h = Math.imul(h, 16777619);
  for (let i = from; i < to; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

export class LexicalScorer {
  readonly #weights: Float32Array;

  constructor(
    readonly model: LexicalModel,
    weights?: Float32Array,
  ) {
    if (model.featureVersion !== LEXICAL_FEATURE_VERSION) throw new Error(`lexical-model.json has feature version ${model.featureVersion}, the code ${LEXICAL_FEATURE_VERSION}: refit it (npm run fit:firewall-lexical)`);
    this.#weights = weights ?? dequantise(model);
    if (this.#weights.length !== model.buckets) throw new Error(`lexical-model.json: ${this.#weights.length} weights for ${model.buckets} buckets`);
  }

  /** A scorer that adds nothing (the signal switched off), for comparisons. */
  static off(buckets: number): LexicalScorer {
    return new LexicalScorer({ featureVersion: LEXICAL_FEATURE_VERSION, buckets, scoreWeight: 0, bias: 0, weights: "", quantum: 0 }, new Float32Array(buckets));
  }

  /** The lexical logit of a text (before scoreWeight). */
  logit(text: string): number {
    const { index, value } = lexicalFeatures(text, this.model.buckets);
    let z = this.model.bias;
    for (let i = 0; i < index.length; i++) z += this.#weights[index[i]!]! * value[i]!;
    return z;
  }

  /** What the lexical signal adds to a built-in pattern's score logit for this window. */
  scoreTerm(text: string): number {
    return this.model.scoreWeight === 0 ? 0 : this.model.scoreWeight * this.logit(text);
  }
}

function dequantise(model: LexicalModel): Float32Array {
  const bytes = Buffer.from(model.weights, "base64");
  const weights = new Float32Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) weights[i] = ((bytes[i]! << 24) >> 24) * model.quantum;
  return weights;
}

/** int8 weights, base64, and their quantum, as lexical-model.json stores them. */
export function quantise(weights: Float32Array): { weights: string; quantum: number } {
  const max = weights.reduce((m, w) => Math.max(m, Math.abs(w)), 0);
  const quantum = max / 127 || 1;
  const bytes = Buffer.alloc(weights.length);
  for (let i = 0; i < weights.length; i++) bytes[i] = Math.round(weights[i]! / quantum) & 0xff;
  return { weights: bytes.toString("base64"), quantum };
}

export const LEXICAL = new LexicalScorer(fitted as LexicalModel);
