import { findNearDuplicate, type NearDuplicate } from './near-duplicate';
import { normaliseText } from './normalise';
import type { ParentIndex } from './parent-index';
import { DEDUP_THRESHOLDS, decideStrategy, recommendEmbedding, type ChunkEvidence } from './rules';
import { sentenceKeys } from './sentence-keys';
import { matchSentences, type SentenceMatch } from './sentence-match';
import type { ChildChunk, DedupResult, StrategyRuleId } from './types';

export type DedupChunkOptions = {
  /** The child's embedding, when already known; enables the cosine near-duplicate rule. */
  childEmbedding?: Float32Array;
};

/** Decide what a new-version chunk can reuse from the parent variant (rules in rules.ts). */
export function dedupChunk(child: ChildChunk, index: ParentIndex, opts: DedupChunkOptions = {}): DedupResult {
  const text = normaliseText(child.text);
  const match = matchSentences(sentenceKeys(child.text), index);
  const exactOrdinal = text ? index.chunkByText.get(text) : undefined;
  const reuse = exactOrdinal === undefined ? sentenceReuse(match, index) : wholeChunkReuse(exactOrdinal, match.total);

  // MinHash (and cosine) only run if a rule reads them, i.e. when sentence rules did not decide.
  let near: NearDuplicate | undefined;
  const nearDuplicate = () => (near ??= findNearDuplicate(text, index, match.reusedByParent.keys(), opts.childEmbedding));

  const evidence: ChunkEvidence = {
    exactMatch: exactOrdinal !== undefined,
    reuseRatio: reuse.ratio,
    sourceBlocks: match.sourceBlocks,
    interleavedNewRuns: match.interleavedNewRuns,
    sourceOverlap: reuse.sourceOverlap,
    get jaccard() {
      return nearDuplicate().jaccard;
    },
    get cosine() {
      return nearDuplicate().cosine;
    },
  };
  const decision = decideStrategy(evidence);
  const recommendation = recommendEmbedding(decision.strategy, evidence);
  const closestOrdinal = near ? closestNearDuplicate(near, decision.rule) : -1;
  const sourceOrdinal = decision.strategy === 'fuzzy' ? closestOrdinal : decision.strategy === 'new' ? -1 : reuse.sourceOrdinal;

  return {
    dedup_strategy: decision.strategy,
    dedup_confidence: decision.similarity(evidence),
    is_reused: decision.strategy === 'exact',
    dedup_source_chunk_id: chunkId(index, sourceOrdinal),
    total_sentences: match.total,
    reused_sentences_count: reuse.reused,
    new_sentences_count: match.total - reuse.reused,
    content_reuse_ratio: reuse.ratio,
    embedding_recommendation: recommendation.recommendation,
    recommendation_confidence: recommendation.confidence,
    dedup_metadata: {
      rule: decision.rule,
      recommendation_rule: `${recommendation.strategy} (${recommendation.when})`,
      matched_parent_chunks: reuse.byParent.map(([ordinal, count]) => ({ chunk_id: index.chunks[ordinal].id, reused_sentences: count })),
      similarity: {
        sentence_reuse_ratio: reuse.ratio,
        source_overlap: reuse.sourceOverlap,
        minhash_jaccard: near ? near.jaccard : null,
        embedding_cosine: near ? near.cosine : null,
        closest_chunk_id: chunkId(index, closestOrdinal),
      },
      structure: { source_blocks: match.sourceBlocks, interleaved_new_runs: match.interleavedNewRuns },
      thresholds: DEDUP_THRESHOLDS,
    },
  };
}

/** Reuse figures read by the rules and reported in the result. */
type Reuse = {
  reused: number;
  ratio: number;
  /** Main source: the parent chunk that supplied the most sentences (earliest on ties); -1 if none. */
  sourceOrdinal: number;
  sourceOverlap: number;
  /** [parent ordinal, sentences supplied], most first. */
  byParent: [number, number][];
};

/**
 * An exact chunk is reused whole: all its sentences count as reused, even where a formatting
 * difference (a heading on its own line or not) made the sentence split differ.
 */
function wholeChunkReuse(ordinal: number, total: number): Reuse {
  return { reused: total, ratio: 1, sourceOrdinal: ordinal, sourceOverlap: 1, byParent: [[ordinal, total]] };
}

function sentenceReuse(match: SentenceMatch, index: ParentIndex): Reuse {
  const byParent = [...match.reusedByParent].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const [sourceOrdinal, shared] = byParent[0] ?? [-1, 0];
  return {
    reused: match.reused,
    ratio: match.total === 0 ? 0 : match.reused / match.total,
    sourceOrdinal,
    sourceOverlap: sourceOrdinal < 0 ? 0 : shared / Math.max(match.total, index.sentenceCounts[sourceOrdinal]),
    byParent,
  };
}

/** The parent the fired near-duplicate rule refers to; for other rules the better measure's. */
function closestNearDuplicate(near: NearDuplicate, rule: StrategyRuleId): number {
  if (rule === 'near_duplicate_embedding') return near.cosineOrdinal;
  if (rule === 'near_duplicate_text' || near.cosine === null || near.jaccard >= near.cosine) return near.jaccardOrdinal;
  return near.cosineOrdinal;
}

function chunkId(index: ParentIndex, ordinal: number): string | null {
  return ordinal >= 0 ? index.chunks[ordinal].id : null;
}
