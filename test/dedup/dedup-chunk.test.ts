import { describe, expect, test } from 'bun:test';
import { buildParentIndex, dedupChunk, dedupVersion, DEDUP_THRESHOLDS } from '../../src/dedup';

const parents = [
  { id: 'intro', text: '## Introduction\nThe warehouse ships pallets daily. Trucks leave at dawn.' },
  { id: 'costs', text: 'Fuel costs rose 3.5% in 2024. Drivers asked for new routes. The board agreed.' },
  { id: 'risks', text: 'Storms delay the northern route. Insurance covers most losses.' },
];
const index = buildParentIndex(parents);

describe('dedupChunk', () => {
  test('exact match ignores case, whitespace, line breaks and edge punctuation', () => {
    const r = dedupChunk({ text: '  fuel COSTS rose 3.5% in 2024.\n\nDrivers asked for new routes.   The board agreed' }, index);
    expect(r).toMatchObject({
      dedup_strategy: 'exact',
      is_reused: true,
      dedup_confidence: 1,
      dedup_source_chunk_id: 'costs',
      total_sentences: 3,
      reused_sentences_count: 3,
      embedding_recommendation: 'reuse',
      recommendation_confidence: 'high',
    });
    expect(r.dedup_metadata.matched_parent_chunks).toEqual([{ chunk_id: 'costs', reused_sentences: 3 }]);
  });

  test('inner punctuation still matters: a changed number is a changed sentence', () => {
    const r = dedupChunk({ text: 'Fuel costs rose 4.5% in 2024. Drivers asked for new routes. The board agreed.' }, index);
    expect(r).toMatchObject({ dedup_strategy: 'partial_reuse', reused_sentences_count: 2, new_sentences_count: 1 });
  });

  test('sentences from two parent chunks next to each other form one block (a moved boundary)', () => {
    const r = dedupChunk({ text: 'Drivers asked for new routes. The board agreed. Storms delay the northern route.' }, index);
    expect(r).toMatchObject({ dedup_strategy: 'high_reuse', content_reuse_ratio: 1, dedup_source_chunk_id: 'costs' });
    expect(r.dedup_metadata.matched_parent_chunks).toEqual([
      { chunk_id: 'costs', reused_sentences: 2 },
      { chunk_id: 'risks', reused_sentences: 1 },
    ]);
    expect(r.dedup_metadata.similarity.source_overlap).toBeCloseTo(2 / 3);
    expect(r.embedding_recommendation).toBe('consider_reuse');
  });

  test('sentences from non-adjacent parent chunks are mixed content', () => {
    const r = dedupChunk({ text: 'Trucks leave at dawn. Insurance covers most losses.' }, index);
    expect(r).toMatchObject({ dedup_strategy: 'mixed_content', content_reuse_ratio: 1, embedding_recommendation: 'regenerate' });
    expect(r.dedup_metadata.rule).toBe('multi_source');
  });

  test('near-duplicate by embedding cosine alone is reported as fuzzy but regenerated: no text in common', () => {
    const withVectors = buildParentIndex(
      parents.map((p, i) => ({ ...p, embedding: Float32Array.from([i === 2 ? 1 : 0, i === 2 ? 0 : 1, 0.1 * i]) })),
    );
    const child = { text: 'Bad weather slows the route up north, but the policy pays for nearly all damage.' };
    const r = dedupChunk(child, withVectors, { childEmbedding: Float32Array.from([0.98, 0.05, 0.2]) });
    expect(r).toMatchObject({ dedup_strategy: 'fuzzy', dedup_source_chunk_id: 'risks', embedding_recommendation: 'regenerate' });
    expect(r.dedup_metadata.rule).toBe('near_duplicate_embedding');
    expect(r.dedup_metadata.recommendation_rule).toBe('fuzzy (embedding cosine only)');
    expect(r.dedup_metadata.similarity.embedding_cosine).toBeGreaterThan(DEDUP_THRESHOLDS.fuzzy_min_cosine);
    expect(r.dedup_confidence).toBe(r.dedup_metadata.similarity.embedding_cosine!);

    const withoutEmbedding = dedupChunk(child, withVectors);
    expect(withoutEmbedding.dedup_strategy).toBe('new');
    expect(withoutEmbedding.dedup_metadata.similarity.embedding_cosine).toBeNull();
  });

  test('an embedding of the wrong size is a caller error', () => {
    const withVectors = buildParentIndex([{ id: 'a', text: 'Alpha.', embedding: new Float32Array(4) }]);
    expect(() => dedupChunk({ text: 'Beta.' }, withVectors, { childEmbedding: new Float32Array(3) })).toThrow(/dimensions differ/);
  });

  test('an empty chunk is new with no sentences', () => {
    expect(dedupChunk({ text: ' \n ' }, index)).toMatchObject({
      dedup_strategy: 'new',
      total_sentences: 0,
      content_reuse_ratio: 0,
      dedup_confidence: 0,
      dedup_source_chunk_id: null,
    });
  });

  test('metadata names the rules that fired and the thresholds in force', () => {
    const r = dedupChunk({ text: 'The warehouse ships pallets daily. Trucks leave at dawn. A new line.' }, index);
    expect(r.dedup_metadata).toMatchObject({
      rule: 'partial_reuse',
      recommendation_rule: 'partial_reuse (always)',
      thresholds: DEDUP_THRESHOLDS,
      similarity: { minhash_jaccard: null, embedding_cosine: null },
    });
  });

  test('a version without parent chunks gets only new chunks', () => {
    expect(dedupVersion([{ text: 'Anything at all.' }], []).map((r) => r.dedup_strategy)).toEqual(['new']);
  });
});
