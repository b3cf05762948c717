import type { DedupResult, DedupStrategy, DedupSummary, EmbeddingRecommendation } from './types';

/** Variant-level totals of per-chunk results: spec §2.3 without variant_id. */
export function summarise(results: readonly DedupResult[], parentVersionId: string | null): DedupSummary {
  const chunkBreakdown: Record<DedupStrategy, number> = {
    exact: 0, high_reuse: 0, partial_reuse: 0, mixed_content: 0, fuzzy: 0, new: 0,
  };
  const recommendations: Record<EmbeddingRecommendation, number> = { reuse: 0, consider_reuse: 0, regenerate: 0 };
  let totalSentences = 0;
  let reusedSentences = 0;
  for (const result of results) {
    chunkBreakdown[result.dedup_strategy]++;
    recommendations[result.embedding_recommendation]++;
    totalSentences += result.total_sentences;
    reusedSentences += result.reused_sentences_count;
  }
  return {
    total_chunks: results.length,
    chunk_breakdown: chunkBreakdown,
    total_sentences: totalSentences,
    reused_sentences: reusedSentences,
    new_sentences: totalSentences - reusedSentences,
    sentence_reuse_ratio: totalSentences === 0 ? 0 : reusedSentences / totalSentences,
    embedding_recommendations: recommendations,
    parent_version_id: parentVersionId,
    has_parent: parentVersionId !== null,
  };
}
