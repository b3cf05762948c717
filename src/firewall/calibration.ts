/**
 * The score that pattern thresholds apply to. Raw MiniLM cosine does not live on the spec's
 * 0.75/0.85/0.95 scale (attacks reach ~0.5–0.7 against the closest hand-written pattern), so
 * every raw similarity goes through a fitted, documented mapping (scripts/fit/firewall.ts, weights
 * in calibration.json, numbers only):
 *
 *   window logit  Z = b + w_t · top + Σ_f w_f · max_f − w_c · c + w_h · h
 *       top   = highest raw cosine between the window and any built-in input pattern,
 *       max_f = the same within family f,
 *       c     = highest raw cosine with the benign contrast texts (contrast.ts),
 *       h     = a linear head on the window's embedding (384 weights + bias), if it earned its place,
 *               plus, where fitted, 384 more on the same window's vector from the general model's
 *               last layer (the custom patterns' space: the same inference, no extra cost).
 *   built-in pattern p:  score = σ(k · (Z − λ · (top − s_p)) + o + a · ℓ)
 *       s_p = the pattern's raw cosine, top = the best raw cosine of any built-in pattern; so the
 *       closest pattern carries the window's score and less similar ones fall off with λ.
 *       ℓ = the lexical model's logit of the window's text, a its weight (lexical.ts,
 *       lexical-model.json; fitted after this file, on the scores it gives). It tells attack-like
 *       from ordinary, not which kind of attack: a positive term applies only to patterns of the
 *       closest pattern's family, a negative one to every pattern (scoring.ts).
 *   custom and output-side patterns:  score = σ(k₁ · s_p + o₁), fitted on raw similarity alone.
 *
 * Each score is increasing in its pattern's similarity (w_t, w_f ≥ 0) and decreasing in c (w_c ≥ 0). k and o place the spec's
 * scale on measured false-positive rates: a score of 0.9 is exceeded by about 1% of ordinary
 * prompts, 0.8 by about 5% (training data, out-of-fold); see docs/firewall.md.
 */
import fitted from "../../models/sieve-firewall/calibration.json";
import { BUILTIN_FAMILIES, type BuiltinFamily } from "./model";

export type Calibration = {
  /** Embedder the weights were fitted with ("<model>/<precision>"). */
  model: string;
  libraryVersion: number;
  contrastVersion: number;
  windowTokens: number;
  families: BuiltinFamily[];
  window: { topWeight: number; familyWeights: number[]; contrastWeight: number; headWeight: number; bias: number };
  /** `lastLayerWeights`: the head's part on the window's last-layer vector (empty or absent: none). */
  head: { weights: number[]; bias: number; lastLayerWeights?: number[] };
  scale: { slope: number; offset: number };
  rankPenalty: number;
  single: { slope: number; offset: number };
};

export const CALIBRATION = fitted as Calibration;

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** Raw signals of one window, before calibration. */
export type WindowSignals = { familyMax: number[]; contrastMax: number; head: number; top: number };

export function windowLogit(calibration: Calibration, signals: WindowSignals): number {
  const { topWeight, familyWeights, contrastWeight, headWeight, bias } = calibration.window;
  let z = bias + topWeight * signals.top - contrastWeight * signals.contrastMax + headWeight * signals.head;
  signals.familyMax.forEach((max, f) => (z += familyWeights[f]! * max));
  return z;
}

/** `lexical`: a · ℓ, the lexical signal's term for the window (LexicalScorer.scoreTerm). */
export function builtinScore(calibration: Calibration, logit: number, top: number, similarity: number, lexical: number): number {
  const { slope, offset } = calibration.scale;
  return sigmoid(slope * (logit - calibration.rankPenalty * (top - similarity)) + offset + lexical);
}

export function singleScore(calibration: Calibration, similarity: number): number {
  return sigmoid(calibration.single.slope * similarity + calibration.single.offset);
}

/** Family order of `familyMax`: the calibration's, which must name every built-in family. */
export function familyIndex(calibration: Calibration): Map<string, number> {
  const index = new Map(calibration.families.map((family, i) => [family as string, i]));
  for (const family of BUILTIN_FAMILIES) if (!index.has(family)) throw new Error(`calibration.json lacks family ${family}`);
  return index;
}
