/** Detection metrics over labelled scores (higher score = more likely an attack). */

export type Scored = { score: number; attack: boolean; weight?: number };

/** ROC AUC by the rank-sum method (ties count half). */
export function rocAuc(rows: Scored[]): number {
  const attacks = rows.filter((r) => r.attack).map((r) => r.score);
  const benign = rows.filter((r) => !r.attack).map((r) => r.score).sort((a, b) => a - b);
  if (attacks.length === 0 || benign.length === 0) return NaN;
  let wins = 0;
  for (const score of attacks) {
    const below = lowerBound(benign, score);
    const equal = lowerBound(benign, nextUp(score)) - below;
    wins += below + equal / 2;
  }
  return wins / (attacks.length * benign.length);
}

/**
 * True-positive rate at the strictest score threshold whose false-positive rate does not exceed
 * `fpr` (scores must exceed the threshold, as the firewall's rule does).
 */
export function tprAtFpr(rows: Scored[], fpr: number): number {
  const benign = rows.filter((r) => !r.attack).map((r) => r.score).sort((a, b) => b - a);
  const attacks = rows.filter((r) => r.attack);
  if (benign.length === 0 || attacks.length === 0) return NaN;
  const allowed = Math.floor(fpr * benign.length);
  // Threshold = the (allowed+1)-th highest benign score: at most `allowed` benign scores exceed it.
  const threshold = benign[allowed] ?? -Infinity;
  return attacks.filter((r) => r.score > threshold).length / attacks.length;
}

/** Weighted log loss, for comparing fits. */
export function logLoss(rows: { p: number; attack: boolean; weight?: number }[]): number {
  let sum = 0;
  let total = 0;
  for (const r of rows) {
    const w = r.weight ?? 1;
    const p = Math.min(1 - 1e-7, Math.max(1e-7, r.p));
    sum -= w * (r.attack ? Math.log(p) : Math.log(1 - p));
    total += w;
  }
  return sum / total;
}

function lowerBound(sorted: number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid] < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

function nextUp(x: number): number {
  return x + Math.max(Math.abs(x) * Number.EPSILON, Number.MIN_VALUE);
}

export const percent = (x: number) => (Number.isNaN(x) ? "–" : `${(100 * x).toFixed(1)}%`);
