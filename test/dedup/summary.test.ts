import { expect, test } from 'bun:test';
import { dedupVersion, noParentResult, summarise } from '../../src/dedup';
import { oneSentenceChangedPerChunk, paragraphInsertedAtTop } from './fixtures/scenarios';

test('summarise counts strategies, sentences and recommendations', () => {
  const { parents, children } = oneSentenceChangedPerChunk(2, [20, 10, 6, 5, 4, 3, 2]);
  const exactCopy = { text: parents[0].text };
  const results = dedupVersion([...children, exactCopy], parents);
  expect(summarise(results, 'version-1')).toEqual({
    total_chunks: 8,
    chunk_breakdown: { exact: 1, high_reuse: 4, partial_reuse: 3, mixed_content: 0, fuzzy: 0, new: 0 },
    total_sentences: 50 + 20,
    reused_sentences: 43 + 20,
    new_sentences: 7,
    sentence_reuse_ratio: 63 / 70,
    embedding_recommendations: { reuse: 2, consider_reuse: 3, regenerate: 3 },
    parent_version_id: 'version-1',
    has_parent: true,
  });
});

test('summary totals equal the sum of the chunk results', () => {
  const { parents, children } = paragraphInsertedAtTop(4);
  const results = dedupVersion(children, parents);
  const summary = summarise(results, 'v');
  expect(summary.total_sentences).toBe(results.reduce((n, r) => n + r.total_sentences, 0));
  expect(summary.reused_sentences + summary.new_sentences).toBe(summary.total_sentences);
  expect(Object.values(summary.chunk_breakdown).reduce((a, b) => a + b, 0)).toBe(results.length);
  expect(Object.values(summary.embedding_recommendations).reduce((a, b) => a + b, 0)).toBe(results.length);
});

test('without a parent every chunk is new and the summary says so', () => {
  const results = ['First sentence. Second sentence.', '## Heading\nBody text here.'].map((text) => noParentResult({ text }));
  expect(results[0]).toMatchObject({
    dedup_strategy: 'new',
    dedup_confidence: 0,
    is_reused: false,
    dedup_source_chunk_id: null,
    total_sentences: 2,
    reused_sentences_count: 0,
    new_sentences_count: 2,
    content_reuse_ratio: 0,
    embedding_recommendation: 'regenerate',
    recommendation_confidence: 'high',
  });
  expect(results[0].dedup_metadata.rule).toBe('no_parent');
  expect(summarise(results, null)).toEqual({
    total_chunks: 2,
    chunk_breakdown: { exact: 0, high_reuse: 0, partial_reuse: 0, mixed_content: 0, fuzzy: 0, new: 2 },
    total_sentences: 4,
    reused_sentences: 0,
    new_sentences: 4,
    sentence_reuse_ratio: 0,
    embedding_recommendations: { reuse: 0, consider_reuse: 0, regenerate: 2 },
    parent_version_id: null,
    has_parent: false,
  });
});

test('an empty variant summarises to zeros without dividing by zero', () => {
  expect(summarise([], null)).toMatchObject({ total_chunks: 0, total_sentences: 0, sentence_reuse_ratio: 0, has_parent: false });
});
