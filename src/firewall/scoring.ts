import { builtinScore, singleScore, windowLogit, type WindowSignals } from "./calibration";
import type { PatternMeta, WorkspacePatterns } from "./pattern-index";
import type { WindowOrigin } from "./scan";
import type { VectorMatrix } from "./vector-matrix";

/**
 * One pattern's similarity to one window, raw and calibrated; `lexical` (built-in input patterns
 * only): the lexical signal's term in the score's logit (lexical.ts).
 */
export type PatternHit = { pattern: PatternMeta; similarity: number; score: number; lexical?: number; origin?: WindowOrigin };

export type WindowScore = {
  /** The enabled pattern with the highest score, fired or not. */
  best: PatternHit | undefined;
  /** Enabled patterns whose score is strictly above their threshold. */
  fired: PatternHit[];
  /** Input side only: the raw signals the calibration combined (used by the fit script). */
  signals?: WindowSignals;
};

/**
 * Scores input windows (user/tool text) against the built-ins (calibrated, with the lexical signal
 * of each window's text) and the workspace's own patterns; `customVectors` are the same windows in
 * the custom patterns' space (encoder.ts), which the head's last-layer part reads too.
 * `lexicalTerms`: each window's lexical term when the caller computed it already (scan.ts, while
 * the encoder ran).
 */
export function scoreInputWindows(
  patterns: WorkspacePatterns,
  texts: string[],
  vectors: Float32Array[],
  customVectors: Float32Array[] = vectors,
  lexicalTerms: number[] = texts.map((text) => patterns.builtins.lexical.scoreTerm(text)),
): WindowScore[] {
  const builtins = patterns.builtins;
  const { calibration } = builtins;
  const rows = builtins.inputMatrix.rows;
  const patternRows = builtins.input.length;
  const sims = builtins.inputMatrix.product(vectors); // one product: patterns, contrast texts and head
  const lastLayerHead = builtins.lastLayerHead?.product(customVectors);
  const custom = customScores(patterns.customInput, patterns.customInputMatrix, customVectors, (s) => singleScore(calibration, s));

  return vectors.map((_, w) => {
    const base = w * rows;
    const familyMax = new Array<number>(calibration.families.length).fill(-1);
    let top = -1;
    let topRow = -1;
    for (let r = 0; r < patternRows; r++) {
      const s = sims[base + r]!;
      const family = builtins.familyOfRow[r]!;
      if (family >= 0 && s > familyMax[family]!) familyMax[family] = s;
      if (s > top) (top = s), (topRow = r);
    }
    let contrastMax = 0;
    for (let r = patternRows; r < patternRows + builtins.contrastRows; r++) contrastMax = Math.max(contrastMax, sims[base + r]!);
    const head = builtins.hasHead ? sims[base + rows - 1]! + (lastLayerHead?.[w] ?? 0) + calibration.head.bias : 0;
    const signals: WindowSignals = { familyMax, contrastMax, head, top };
    const logit = windowLogit(calibration, signals);
    // The lexical signal tells "reads like an attack" or "reads like ordinary text", not which
    // kind of attack: ordinary-looking text lowers every pattern, attack-looking text backs only
    // the family of the window's closest pattern (so switching that family off lets it through).
    const lexical = lexicalTerms[w]!;
    const topFamily = builtins.familyOfRow[topRow];
    const lexicalFor = (row: number) => (lexical < 0 || builtins.familyOfRow[row] === topFamily ? lexical : 0);

    const window = collect(
      patterns.builtinInput,
      patterns.inputEnabled,
      (r) => sims[base + r]!,
      (s, lexicalTerm) => builtinScore(calibration, logit, top, s, lexicalTerm),
      lexicalFor,
    );
    merge(window, custom[w]);
    window.signals = signals;
    return window;
  });
}

/** Output windows (assistant text) against the output-side patterns; raw similarity alone is calibrated. */
export function scoreOutputWindows(patterns: WorkspacePatterns, vectors: Float32Array[]): WindowScore[] {
  const builtins = patterns.builtins;
  const score = (s: number) => singleScore(builtins.calibration, s);
  const rows = builtins.outputMatrix.rows;
  const sims = rows > 0 ? builtins.outputMatrix.product(vectors) : new Float32Array(0);
  const custom = customScores(patterns.customOutput, patterns.customOutputMatrix, vectors, score);
  return vectors.map((_, w) => {
    const window = collect(patterns.builtinOutput, patterns.outputEnabled, (r) => sims[w * rows + r]!, score);
    merge(window, custom[w]);
    return window;
  });
}

function customScores(metas: PatternMeta[], matrix: VectorMatrix, vectors: Float32Array[], score: (s: number) => number): WindowScore[] {
  if (metas.length === 0) return vectors.map(() => ({ best: undefined, fired: [] }));
  const sims = matrix.product(vectors);
  const enabled = new Uint8Array(metas.length).fill(1); // disabled custom patterns are not loaded at all
  return vectors.map((_, w) => collect(metas, enabled, (r) => sims[w * metas.length + r]!, score));
}

function collect(
  metas: PatternMeta[],
  enabled: Uint8Array,
  similarity: (row: number) => number,
  score: (similarity: number, lexicalTerm: number) => number,
  /** The lexical term of each row (built-in input patterns only): passed to `score` and kept on the hit. */
  lexical?: (row: number) => number,
): WindowScore {
  const window: WindowScore = { best: undefined, fired: [] };
  const hitAt = (row: number, similarity: number, value: number, term: number | undefined): PatternHit => {
    const hit: PatternHit = { pattern: metas[row]!, similarity, score: value };
    if (term !== undefined) hit.lexical = term;
    return hit;
  };
  // Hits are made only for the best pattern and those that fire: a window is scored against every
  // built-in (~170), and most of them neither.
  let best: { row: number; similarity: number; value: number; term: number | undefined; hit?: PatternHit } | undefined;
  for (let r = 0; r < metas.length; r++) {
    if (!enabled[r]) continue;
    const s = similarity(r);
    const term = lexical?.(r);
    const value = score(s, term ?? 0);
    const fired = value > metas[r]!.threshold ? hitAt(r, s, value, term) : undefined;
    if (fired) window.fired.push(fired);
    if (!best || value > best.value) best = { row: r, similarity: s, value, term, hit: fired };
  }
  if (best) window.best = best.hit ?? hitAt(best.row, best.similarity, best.value, best.term);
  return window;
}

function merge(into: WindowScore, other: WindowScore | undefined) {
  if (!other) return;
  into.fired.push(...other.fired);
  if (other.best && (!into.best || other.best.score > into.best.score)) into.best = other.best;
}
