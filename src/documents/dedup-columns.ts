/** DedupResult (src/dedup) ↔ the dedup columns of a chunk row. */
import type { DedupResult } from "../dedup";
import type { ChunkRow, NewChunk } from "./chunk-store";

type DedupColumns = Pick<
  NewChunk,
  | "dedupStrategy"
  | "dedupConfidence"
  | "isReused"
  | "dedupSourceChunkId"
  | "totalSentences"
  | "reusedSentencesCount"
  | "newSentencesCount"
  | "contentReuseRatio"
  | "embeddingRecommendation"
  | "recommendationConfidence"
  | "dedupMetadata"
>;

export function dedupColumns(result: DedupResult): DedupColumns {
  return {
    dedupStrategy: result.dedup_strategy,
    dedupConfidence: result.dedup_confidence,
    isReused: result.is_reused,
    dedupSourceChunkId: result.dedup_source_chunk_id,
    totalSentences: result.total_sentences,
    reusedSentencesCount: result.reused_sentences_count,
    newSentencesCount: result.new_sentences_count,
    contentReuseRatio: result.content_reuse_ratio,
    embeddingRecommendation: result.embedding_recommendation,
    recommendationConfidence: result.recommendation_confidence,
    dedupMetadata: result.dedup_metadata,
  };
}

export function dedupResultOf(row: ChunkRow): DedupResult {
  return {
    dedup_strategy: row.dedupStrategy,
    dedup_confidence: row.dedupConfidence,
    is_reused: row.isReused,
    dedup_source_chunk_id: row.dedupSourceChunkId,
    total_sentences: row.totalSentences,
    reused_sentences_count: row.reusedSentencesCount,
    new_sentences_count: row.newSentencesCount,
    content_reuse_ratio: row.contentReuseRatio,
    embedding_recommendation: row.embeddingRecommendation,
    recommendation_confidence: row.recommendationConfidence,
    dedup_metadata: row.dedupMetadata,
  };
}
