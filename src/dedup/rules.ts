import type {
  DedupStrategy,
  DedupThresholds,
  EmbeddingRecommendation,
  RecommendationConfidence,
  StrategyRuleId,
} from './types';

/**
 * Every deduplication decision, as two ordered tables. First matching row wins.
 * `ratio` = content_reuse_ratio (child sentences found anywhere in the parent ÷ child sentences).
 * Source blocks and interleaved new runs are defined in sentence-match.ts; source_overlap is
 * (sentences shared with the main source chunk) ÷ (the larger sentence count of the two chunks).
 *
 * Strategy
 *
 * | # | rule                     | strategy      | when                                                               | dedup_confidence            |
 * |---|--------------------------|---------------|--------------------------------------------------------------------|-----------------------------|
 * | 1 | exact_text               | exact         | normalised chunk text equals a parent chunk's                      | 1.0                         |
 * | 2 | multi_source             | mixed_content | ratio ≥ 0.3 and the reused sentences form ≥ 2 source blocks        | ratio                       |
 * | 3 | high_reuse               | high_reuse    | ratio ≥ 0.8                                                        | ratio                       |
 * | 4 | interleaved              | mixed_content | ratio ≥ 0.3 and ≥ 2 runs of new sentences sit between reused ones  | ratio                       |
 * | 5 | partial_reuse            | partial_reuse | ratio ≥ 0.3                                                        | ratio                       |
 * | 6 | near_duplicate_text      | fuzzy         | MinHash Jaccard (word 3-shingles) with the closest parent ≥ 0.5    | max(jaccard, cosine)        |
 * | 7 | near_duplicate_embedding | fuzzy         | both embeddings known and cosine with the closest parent ≥ 0.9     | max(jaccard, cosine)        |
 * | 8 | no_match                 | new           | otherwise                                                          | max(ratio, jaccard, cosine) |
 *
 * (cosine counts only when a child embedding was passed, and the server passes none for a chunk
 * the encoder cannot read, whose vector says nothing; dedup_confidence is clamped to 0..1.)
 *
 * Embedding recommendation (the copied embedding would be the source chunk's). Copying is only
 * ever advised when the text itself is (nearly) the same — by sentences or by MinHash — never
 * from embedding similarity alone: a close embedding is only known after computing the new one,
 * so it cannot save that work, and chunks on the same topic are close without sharing text.
 *
 * | strategy      | when                   | embedding_recommendation | recommendation_confidence |
 * |---------------|------------------------|--------------------------|---------------------------|
 * | exact         | always                 | reuse                    | high                      |
 * | high_reuse    | source_overlap ≥ 0.95  | reuse                    | medium                    |
 * | high_reuse    | otherwise              | consider_reuse           | medium                    |
 * | partial_reuse | always                 | regenerate               | medium                    |
 * | mixed_content | always                 | regenerate               | medium                    |
 * | fuzzy         | jaccard ≥ 0.5          | consider_reuse           | low                       |
 * | fuzzy         | otherwise (cosine only)| regenerate               | medium                    |
 * | new           | always                 | regenerate               | high                      |
 *
 * Why these numbers
 * - 0.8 (high_reuse): one rewritten sentence in a chunk of five or more is still high reuse,
 *   one in four is not. A mean-pooled chunk embedding moves roughly with the share of replaced
 *   text; beyond a fifth of the sentences that move is no longer small.
 * - 0.3 (partial floor): below it the reuse is incidental (a repeated heading or boilerplate
 *   line) and says nothing about the chunk, which then goes on to the near-duplicate checks.
 * - multi_source before high_reuse: a chunk glued together from separate places of the parent
 *   matches no parent embedding, however many of its sentences are old.
 * - interleaved after high_reuse: with ≥ 80% reuse, scattered new sentences are light edits;
 *   below that, new text in two or more places means a blend rather than an edited chunk.
 * - 0.5 (Jaccard): one changed word in every ~15-word sentence leaves a chunk at Jaccard
 *   ≈ 0.55–0.7 with its original (word 3-shingles; 0.54–0.70 on the test corpus), while distinct
 *   passages of the same corpus stay ≤ 0.05. Half the shingles shared is clearly the same text.
 * - 0.9 (cosine): MiniLM puts paraphrases around 0.85 and unrelated text near 0; only
 *   near-identical chunks clear 0.9.
 * - 0.95 (reuse a high_reuse embedding): copying is only safe when the two chunks share ≥ 95%
 *   of their sentences both ways, e.g. one edit in twenty sentences or pure re-formatting. A
 *   chunk whose boundary moved (all sentences old, but from two parent chunks) is only
 *   consider_reuse.
 * - partial_reuse is regenerated: with a fifth or more of its sentences new, the chunk's
 *   embedding has moved too far for the old one to stand in for it (see 0.8 above).
 */
export const DEDUP_THRESHOLDS: Readonly<DedupThresholds> = Object.freeze({
  high_reuse_min_ratio: 0.8,
  partial_reuse_min_ratio: 0.3,
  interleaved_min_new_runs: 2,
  fuzzy_min_jaccard: 0.5,
  fuzzy_min_cosine: 0.9,
  reuse_min_source_overlap: 0.95,
});

/** What the rules read about one child chunk. */
export type ChunkEvidence = {
  exactMatch: boolean;
  reuseRatio: number;
  sourceBlocks: number;
  interleavedNewRuns: number;
  sourceOverlap: number;
  /** MinHash Jaccard with the closest parent. May be a getter: only rows 6–8 read it. */
  readonly jaccard: number;
  /** Best embedding cosine; null without embeddings. May be a getter, like jaccard. */
  readonly cosine: number | null;
};

/** The evidence of a chunk that matched nothing in its parent (or has no parent). */
export const NOTHING_MATCHED: ChunkEvidence = {
  exactMatch: false,
  reuseRatio: 0,
  sourceBlocks: 0,
  interleavedNewRuns: 0,
  sourceOverlap: 0,
  jaccard: 0,
  cosine: null,
};

type StrategyRow = {
  rule: StrategyRuleId;
  strategy: DedupStrategy;
  applies: (e: ChunkEvidence) => boolean;
  similarity: (e: ChunkEvidence) => number;
};

type RecommendationRow = {
  strategy: DedupStrategy;
  /** Human-readable condition, reported as dedup_metadata.recommendation_rule. */
  when: string;
  applies: (e: ChunkEvidence) => boolean;
  recommendation: EmbeddingRecommendation;
  confidence: RecommendationConfidence;
};

const T = DEDUP_THRESHOLDS;
const always = () => true;
const someReuse = (e: ChunkEvidence) => e.reuseRatio >= T.partial_reuse_min_ratio;
const reuseRatio = (e: ChunkEvidence) => e.reuseRatio;
const nearSimilarity = (e: ChunkEvidence) => clamp01(Math.max(e.jaccard, e.cosine ?? 0));

const STRATEGY_RULES: readonly StrategyRow[] = [
  { rule: 'exact_text', strategy: 'exact', applies: (e) => e.exactMatch, similarity: () => 1 },
  { rule: 'multi_source', strategy: 'mixed_content', applies: (e) => someReuse(e) && e.sourceBlocks >= 2, similarity: reuseRatio },
  { rule: 'high_reuse', strategy: 'high_reuse', applies: (e) => e.reuseRatio >= T.high_reuse_min_ratio, similarity: reuseRatio },
  {
    rule: 'interleaved',
    strategy: 'mixed_content',
    applies: (e) => someReuse(e) && e.interleavedNewRuns >= T.interleaved_min_new_runs,
    similarity: reuseRatio,
  },
  { rule: 'partial_reuse', strategy: 'partial_reuse', applies: someReuse, similarity: reuseRatio },
  { rule: 'near_duplicate_text', strategy: 'fuzzy', applies: (e) => e.jaccard >= T.fuzzy_min_jaccard, similarity: nearSimilarity },
  {
    rule: 'near_duplicate_embedding',
    strategy: 'fuzzy',
    applies: (e) => e.cosine !== null && e.cosine >= T.fuzzy_min_cosine,
    similarity: nearSimilarity,
  },
  { rule: 'no_match', strategy: 'new', applies: always, similarity: (e) => Math.max(e.reuseRatio, nearSimilarity(e)) },
];

const RECOMMENDATION_RULES: readonly RecommendationRow[] = [
  { strategy: 'exact', when: 'always', applies: always, recommendation: 'reuse', confidence: 'high' },
  {
    strategy: 'high_reuse',
    when: `source_overlap >= ${T.reuse_min_source_overlap}`,
    applies: (e) => e.sourceOverlap >= T.reuse_min_source_overlap,
    recommendation: 'reuse',
    confidence: 'medium',
  },
  { strategy: 'high_reuse', when: 'otherwise', applies: always, recommendation: 'consider_reuse', confidence: 'medium' },
  { strategy: 'partial_reuse', when: 'always', applies: always, recommendation: 'regenerate', confidence: 'medium' },
  { strategy: 'mixed_content', when: 'always', applies: always, recommendation: 'regenerate', confidence: 'medium' },
  {
    strategy: 'fuzzy',
    when: `jaccard >= ${T.fuzzy_min_jaccard}`,
    applies: (e) => e.jaccard >= T.fuzzy_min_jaccard,
    recommendation: 'consider_reuse',
    confidence: 'low',
  },
  { strategy: 'fuzzy', when: 'embedding cosine only', applies: always, recommendation: 'regenerate', confidence: 'medium' },
  { strategy: 'new', when: 'always', applies: always, recommendation: 'regenerate', confidence: 'high' },
];

export function decideStrategy(evidence: ChunkEvidence): StrategyRow {
  // The last row always applies, so find() cannot miss.
  return STRATEGY_RULES.find((row) => row.applies(evidence))!;
}

export function recommendEmbedding(strategy: DedupStrategy, evidence: ChunkEvidence): RecommendationRow {
  return RECOMMENDATION_RULES.find((row) => row.strategy === strategy && row.applies(evidence))!;
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}
