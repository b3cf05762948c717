/**
 * Reciprocal-rank fusion (Cormack et al., 2009): a chunk scores Σ weight / (K + rank) over the
 * rankings it appears in (rank from 1). Ranks, not raw scores, are fused, so BM25 and cosine
 * similarity need no common scale.
 */
import type { Ranked } from "./rankings";

/** The constant of the original paper: damps the difference between the first few ranks. */
export const RRF_K = 60;

export type Signal = "vector" | "keyword";

export type Fused = { seq: number; score: number; matched: Signal[]; similarity: number | null };

export function fuseRankings(rankings: { signal: Signal; weight: number; ranked: Ranked[] }[]): Fused[] {
  const fused = new Map<number, Fused>();
  for (const { signal, weight, ranked } of rankings) {
    if (weight === 0) continue;
    ranked.forEach((entry, i) => {
      const chunk = fused.get(entry.seq) ?? { seq: entry.seq, score: 0, matched: [], similarity: null };
      chunk.score += weight / (RRF_K + i + 1);
      chunk.matched.push(signal);
      if (entry.similarity !== undefined) chunk.similarity = entry.similarity;
      fused.set(entry.seq, chunk);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.seq - b.seq);
}
