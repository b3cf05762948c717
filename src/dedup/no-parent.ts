import { DEDUP_THRESHOLDS, NOTHING_MATCHED, recommendEmbedding } from './rules';
import { sentenceKeys } from './sentence-keys';
import type { ChildChunk, DedupResult } from './types';

/** Result for a chunk of a version without a parent: everything is new and must be embedded. */
export function noParentResult(child: ChildChunk): DedupResult {
  const total = sentenceKeys(child.text).length;
  const recommendation = recommendEmbedding('new', NOTHING_MATCHED);
  return {
    dedup_strategy: 'new',
    dedup_confidence: 0,
    is_reused: false,
    dedup_source_chunk_id: null,
    total_sentences: total,
    reused_sentences_count: 0,
    new_sentences_count: total,
    content_reuse_ratio: 0,
    embedding_recommendation: recommendation.recommendation,
    recommendation_confidence: recommendation.confidence,
    dedup_metadata: {
      rule: 'no_parent',
      recommendation_rule: `${recommendation.strategy} (${recommendation.when})`,
      matched_parent_chunks: [],
      similarity: { sentence_reuse_ratio: 0, source_overlap: 0, minhash_jaccard: null, embedding_cosine: null, closest_chunk_id: null },
      structure: { source_blocks: 0, interleaved_new_runs: 0 },
      thresholds: DEDUP_THRESHOLDS,
    },
  };
}
