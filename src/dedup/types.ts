/**
 * Data shapes of the version-aware deduplication engine.
 * Field names of DedupResult and DedupSummary follow the service spec (§2.1, §2.3) so the API
 * layer can copy them onto chunk rows and responses without renaming.
 */

/** A chunk of the parent version's variant (same chunking config as the new version). */
export type ParentChunk = {
  id: string;
  text: string;
  /** Stored embedding; only needed for the embedding-cosine near-duplicate check. */
  embedding?: Float32Array | null;
};

/** A chunk of the new version, before it has an id or an embedding. */
export type ChildChunk = { text: string };

export type DedupStrategy = 'exact' | 'high_reuse' | 'partial_reuse' | 'mixed_content' | 'fuzzy' | 'new';
export type EmbeddingRecommendation = 'reuse' | 'consider_reuse' | 'regenerate';
export type RecommendationConfidence = 'high' | 'medium' | 'low';

/** Which row of the strategy table (rules.ts) decided the chunk; 'no_parent' when there was none. */
export type StrategyRuleId =
  | 'exact_text'
  | 'multi_source'
  | 'high_reuse'
  | 'interleaved'
  | 'partial_reuse'
  | 'near_duplicate_text'
  | 'near_duplicate_embedding'
  | 'no_match'
  | 'no_parent';

export type DedupThresholds = {
  /** content_reuse_ratio at or above which a single-source chunk is high_reuse. */
  high_reuse_min_ratio: number;
  /** content_reuse_ratio at or above which sentence reuse counts at all (partial / mixed). */
  partial_reuse_min_ratio: number;
  /** Runs of new sentences between reused ones that make a chunk interleaved. */
  interleaved_min_new_runs: number;
  /** MinHash Jaccard estimate (word 3-shingles) at or above which a chunk is fuzzy. */
  fuzzy_min_jaccard: number;
  /** Embedding cosine at or above which a chunk is fuzzy (only when both embeddings exist). */
  fuzzy_min_cosine: number;
  /** source_overlap at or above which a high_reuse chunk may copy its source's embedding. */
  reuse_min_source_overlap: number;
};

export type DedupMetadata = {
  /** Strategy-table row that fired. */
  rule: StrategyRuleId;
  /** Recommendation-table row that fired, e.g. "high_reuse & source_overlap >= 0.95". */
  recommendation_rule: string;
  /** Parent chunks that supplied reused sentences, most sentences first. */
  matched_parent_chunks: { chunk_id: string; reused_sentences: number }[];
  similarity: {
    sentence_reuse_ratio: number;
    /** Sentences shared with the main source chunk ÷ the larger sentence count of the two. */
    source_overlap: number;
    /** MinHash Jaccard estimate against the closest parent; null when sentence rules decided first. */
    minhash_jaccard: number | null;
    /** Best cosine against parent embeddings; null unless a child embedding was given. */
    embedding_cosine: number | null;
    /** Parent chunk the near-duplicate measures refer to. */
    closest_chunk_id: string | null;
  };
  structure: {
    /** Separate runs of parent text the reused sentences come from (see sentence-match.ts). */
    source_blocks: number;
    /** Runs of new sentences with reused sentences on both sides. */
    interleaved_new_runs: number;
  };
  thresholds: DedupThresholds;
};

/** Per-chunk outcome; the dedup fields of the spec's chunk object (§2.1). */
export type DedupResult = {
  dedup_strategy: DedupStrategy;
  /** Similarity behind the decision, 0..1 (1 for exact; reuse ratio for sentence strategies). */
  dedup_confidence: number;
  /** True only for exact. */
  is_reused: boolean;
  /** Exact source, main source of reused sentences, or closest near-duplicate; null for new. */
  dedup_source_chunk_id: string | null;
  total_sentences: number;
  reused_sentences_count: number;
  new_sentences_count: number;
  /** reused_sentences_count ÷ total_sentences, 0 for a chunk without sentences. */
  content_reuse_ratio: number;
  embedding_recommendation: EmbeddingRecommendation;
  recommendation_confidence: RecommendationConfidence;
  dedup_metadata: DedupMetadata;
};

/** Spec §2.3 without variant_id (the API layer owns ids). */
export type DedupSummary = {
  total_chunks: number;
  /** Every strategy is present, with 0 when unused, so clients see a stable shape. */
  chunk_breakdown: Record<DedupStrategy, number>;
  total_sentences: number;
  reused_sentences: number;
  new_sentences: number;
  sentence_reuse_ratio: number;
  embedding_recommendations: Record<EmbeddingRecommendation, number>;
  parent_version_id: string | null;
  has_parent: boolean;
};
