/**
 * quality_score: a 0..1 estimate of how usable a chunk's text is. It starts at 1 and is
 * multiplied by one factor per defect found:
 * - too short: under 24 tokens a chunk reads as a fragment; factor 0.4 + 0.6 × tokens / 24;
 * - garbage characters (U+FFFD, control characters, private-use glyphs: the marks of a broken
 *   text extraction); factor 1 − min(1, 5 × their share of all characters);
 * - symbol soup (text chunks only; tables and code are symbol-heavy by nature): the share of
 *   non-space characters that are neither letters nor digits; above 0.25, factor
 *   1 − min(0.6, 2 × (share − 0.25));
 * - broken words (not code): words split by a lost line break ("exam- ple") and letters spaced
 *   out ("t h i s"); factor 1 − min(0.5, 5 × broken / words).
 * The result is rounded to 3 decimals, so equal inputs give equal scores.
 */
import type { ChunkType } from "./types.ts";

const FULL_LENGTH_TOKENS = 24;
const GARBAGE = /[\uFFFD\p{Co}\x00-\x08\x0B\x0E-\x1F\x7F-\x9F]/gu;
const SYMBOL = /[^\p{L}\p{N}\s]/gu;
const HYPHEN_BREAK = /\p{Ll}- \p{Ll}/gu;
const SPACED_LETTERS = /(?<!\S)(?:\p{L} ){3,}\p{L}(?!\S)/gu;

export function qualityScore(text: string, tokens: number, chunkType: ChunkType): number {
  const characters = text.length;
  if (characters === 0 || tokens === 0) return 0;
  let score = 1;
  if (tokens < FULL_LENGTH_TOKENS) score *= 0.4 + (0.6 * tokens) / FULL_LENGTH_TOKENS;

  score *= 1 - Math.min(1, (5 * countMatches(text, GARBAGE)) / characters);

  if (chunkType === "text") {
    const visible = text.replace(/\s/g, "").length;
    const symbolShare = visible === 0 ? 0 : countMatches(text, SYMBOL) / visible;
    if (symbolShare > 0.25) score *= 1 - Math.min(0.6, 2 * (symbolShare - 0.25));
  }

  if (chunkType !== "code") {
    const words = text.split(/\s+/).filter(Boolean).length;
    const spacedLetters = [...text.matchAll(SPACED_LETTERS)].reduce((sum, match) => sum + Math.ceil(match[0].length / 2), 0);
    const broken = countMatches(text, HYPHEN_BREAK) + spacedLetters;
    score *= 1 - Math.min(0.5, (5 * broken) / Math.max(words, 1));
  }
  return Math.round(score * 1000) / 1000;
}

function countMatches(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}
