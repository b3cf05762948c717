import { describe, expect, test } from 'bun:test';
import { decideStrategy, NOTHING_MATCHED, recommendEmbedding, type ChunkEvidence } from '../../src/dedup/rules';
import type { DedupStrategy, EmbeddingRecommendation, RecommendationConfidence, StrategyRuleId } from '../../src/dedup/types';

const evidence = (overrides: Partial<ChunkEvidence>): ChunkEvidence => ({ ...NOTHING_MATCHED, ...overrides });

describe('strategy table', () => {
  const cases: [string, Partial<ChunkEvidence>, DedupStrategy, StrategyRuleId][] = [
    ['exact text wins over everything', { exactMatch: true, reuseRatio: 1, sourceBlocks: 3 }, 'exact', 'exact_text'],
    ['two source blocks are mixed even at full reuse', { reuseRatio: 1, sourceBlocks: 2 }, 'mixed_content', 'multi_source'],
    ['ratio 0.8 from one block is high reuse', { reuseRatio: 0.8, sourceBlocks: 1, interleavedNewRuns: 2 }, 'high_reuse', 'high_reuse'],
    ['ratio 0.7 with new text at two places is mixed', { reuseRatio: 0.7, sourceBlocks: 1, interleavedNewRuns: 2 }, 'mixed_content', 'interleaved'],
    ['ratio 0.7 with one edited run is partial', { reuseRatio: 0.7, sourceBlocks: 1, interleavedNewRuns: 1 }, 'partial_reuse', 'partial_reuse'],
    ['ratio 0.3 is still partial', { reuseRatio: 0.3, sourceBlocks: 1 }, 'partial_reuse', 'partial_reuse'],
    ['below 0.3, two blocks are not mixed: falls through to new', { reuseRatio: 0.2, sourceBlocks: 2 }, 'new', 'no_match'],
    ['Jaccard 0.5 is fuzzy', { reuseRatio: 0.1, jaccard: 0.5 }, 'fuzzy', 'near_duplicate_text'],
    ['cosine 0.9 is fuzzy', { jaccard: 0.2, cosine: 0.9 }, 'fuzzy', 'near_duplicate_embedding'],
    ['cosine 0.89 and Jaccard 0.49 are new', { jaccard: 0.49, cosine: 0.89 }, 'new', 'no_match'],
  ];
  for (const [name, overrides, strategy, rule] of cases) {
    test(name, () => {
      const row = decideStrategy(evidence(overrides));
      expect([row.strategy, row.rule]).toEqual([strategy, rule]);
    });
  }

  test('dedup_confidence: 1 for exact, ratio for sentence rules, best similarity otherwise', () => {
    const similarity = (o: Partial<ChunkEvidence>) => decideStrategy(evidence(o)).similarity(evidence(o));
    expect(similarity({ exactMatch: true })).toBe(1);
    expect(similarity({ reuseRatio: 0.85, sourceBlocks: 1 })).toBe(0.85);
    expect(similarity({ jaccard: 0.6, cosine: 0.7 })).toBe(0.7);
    expect(similarity({ reuseRatio: 0.1, jaccard: 0.2, cosine: -0.3 })).toBe(0.2);
  });

  test('near-duplicate measures are not read when a sentence rule decides', () => {
    const lazy = {
      ...evidence({ reuseRatio: 0.9, sourceBlocks: 1 }),
      get jaccard(): number {
        throw new Error('MinHash should not run');
      },
    };
    expect(decideStrategy(lazy).strategy).toBe('high_reuse');
  });
});

describe('recommendation table', () => {
  const cases: [DedupStrategy, Partial<ChunkEvidence>, EmbeddingRecommendation, RecommendationConfidence][] = [
    ['exact', {}, 'reuse', 'high'],
    ['high_reuse', { sourceOverlap: 0.95 }, 'reuse', 'medium'],
    ['high_reuse', { sourceOverlap: 0.9 }, 'consider_reuse', 'medium'],
    ['partial_reuse', { sourceOverlap: 1 }, 'regenerate', 'medium'],
    ['partial_reuse', { sourceOverlap: 0.4 }, 'regenerate', 'medium'],
    ['mixed_content', { sourceOverlap: 1 }, 'regenerate', 'medium'],
    ['fuzzy', { jaccard: 0.5 }, 'consider_reuse', 'low'],
    ['fuzzy', { jaccard: 0.49, cosine: 0.99 }, 'regenerate', 'medium'],
    ['new', {}, 'regenerate', 'high'],
  ];
  for (const [strategy, overrides, recommendation, confidence] of cases) {
    test(`${strategy} ${JSON.stringify(overrides)} → ${recommendation}/${confidence}`, () => {
      const row = recommendEmbedding(strategy, evidence(overrides));
      expect([row.recommendation, row.confidence]).toEqual([recommendation, confidence]);
    });
  }
});
