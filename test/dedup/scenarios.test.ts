import { describe, expect, test } from 'bun:test';
import { dedupVersion, summarise, type DedupResult } from '../../src/dedup';
import { normaliseText } from '../../src/dedup/normalise';
import {
  entirelyNewDocument,
  lightlyRewrittenSection,
  movedParagraph,
  oneSentenceChangedPerChunk,
  paragraphInsertedAtTop,
  unchangedDocument,
} from './fixtures/scenarios';

const strategies = (results: DedupResult[]) => results.map((r) => r.dedup_strategy);
const count = (results: DedupResult[], strategy: DedupResult['dedup_strategy']) => results.filter((r) => r.dedup_strategy === strategy).length;

describe('version pairs', () => {
  test('unchanged document: every chunk exact, reused from the parent chunk at the same place', () => {
    const { parents, children } = unchangedDocument(1);
    const results = dedupVersion(children, parents);
    expect(results.length).toBeGreaterThan(20);
    results.forEach((r, i) => {
      expect(r).toMatchObject({
        dedup_strategy: 'exact',
        is_reused: true,
        dedup_confidence: 1,
        dedup_source_chunk_id: parents[i].id,
        new_sentences_count: 0,
        content_reuse_ratio: 1,
        embedding_recommendation: 'reuse',
        recommendation_confidence: 'high',
      });
    });
  });

  test('one sentence changed per chunk: high_reuse from 5 sentences up, partial_reuse below', () => {
    const sizes = [20, 10, 6, 5, 4, 3, 2];
    const { parents, children } = oneSentenceChangedPerChunk(2, sizes);
    const results = dedupVersion(children, parents);
    expect(strategies(results)).toEqual(['high_reuse', 'high_reuse', 'high_reuse', 'high_reuse', 'partial_reuse', 'partial_reuse', 'partial_reuse']);
    expect(results.map((r) => [r.total_sentences, r.reused_sentences_count, r.new_sentences_count])).toEqual(sizes.map((n) => [n, n - 1, 1]));
    expect(results.map((r) => r.dedup_source_chunk_id)).toEqual(parents.map((p) => p.id));
    // Only the 20-sentence chunk shares ≥ 95% of its sentences with its source: safe to copy.
    // Below 80% reuse (partial) the old embedding no longer stands in for the chunk.
    expect(results.map((r) => `${r.embedding_recommendation}/${r.recommendation_confidence}`)).toEqual([
      'reuse/medium',
      'consider_reuse/medium',
      'consider_reuse/medium',
      'consider_reuse/medium',
      'regenerate/medium',
      'regenerate/medium',
      'regenerate/medium',
    ]);
    expect(results.every((r) => !r.is_reused)).toBe(true);
  });

  test('paragraph moved: all text still counted as reused, mixed_content where it lands', () => {
    const { parents, children, moved } = movedParagraph(3);
    const results = dedupVersion(children, parents);
    const summary = summarise(results, 'v1');
    expect(summary.reused_sentences).toBe(summary.total_sentences);

    const landing = children.findIndex((c) => normaliseText(c.text).includes(normaliseText(moved.sentences[0])));
    expect(results[landing].total_sentences).toBeGreaterThan(moved.sentences.length); // it shares the chunk with other text
    expect(results[landing]).toMatchObject({ dedup_strategy: 'mixed_content', embedding_recommendation: 'regenerate' });
    expect(results[landing].dedup_metadata.structure.source_blocks).toBeGreaterThanOrEqual(2);
    expect(results[landing].dedup_metadata.matched_parent_chunks.length).toBeGreaterThanOrEqual(2);
    // Chunks whose boundaries merely moved are not mixed.
    expect(count(results, 'mixed_content')).toBeLessThanOrEqual(2);
    expect(count(results, 'new') + count(results, 'fuzzy')).toBe(0);
  });

  test('paragraph inserted at the top of a long fixed-size-chunked document: reuse survives the shifted boundaries', () => {
    const { parents, children, inserted } = paragraphInsertedAtTop(4);
    expect(parents.length).toBeGreaterThan(50);
    const results = dedupVersion(children, parents);
    const summary = summarise(results, 'v1');

    expect(summary.new_sentences).toBe(inserted.sentences.length);
    expect(summary.sentence_reuse_ratio).toBeGreaterThanOrEqual(0.95);
    expect((count(results, 'exact') + count(results, 'high_reuse')) / results.length).toBeGreaterThanOrEqual(0.8);
    expect(count(results, 'mixed_content')).toBe(0);
    // Every chunk after the first consists of old sentences only.
    expect(results.slice(1).every((r) => r.new_sentences_count === 0)).toBe(true);
    // A shifted chunk straddles two parent chunks: its sentences are old but no single parent
    // embedding covers it, so copying is only considered.
    const shifted = results.filter((r) => r.dedup_strategy === 'high_reuse' && r.dedup_metadata.matched_parent_chunks.length === 2);
    expect(shifted.length).toBeGreaterThan(0);
    expect(shifted.every((r) => r.embedding_recommendation === 'consider_reuse')).toBe(true);
  });

  test('section lightly reworded: fuzzy against the chunk it came from, the rest exact', () => {
    const { parents, children, rewritten } = lightlyRewrittenSection(5);
    const results = dedupVersion(children, parents);
    results.forEach((r, i) => {
      if (!rewritten.includes(i)) return expect(r.dedup_strategy).toBe('exact');
      expect(r).toMatchObject({
        dedup_strategy: 'fuzzy',
        dedup_source_chunk_id: parents[i].id,
        reused_sentences_count: 0,
        is_reused: false,
        embedding_recommendation: 'consider_reuse',
        recommendation_confidence: 'low',
      });
      expect(r.dedup_metadata.rule).toBe('near_duplicate_text');
      expect(r.dedup_metadata.similarity.minhash_jaccard).toBeGreaterThanOrEqual(0.5);
      expect(r.dedup_confidence).toBe(r.dedup_metadata.similarity.minhash_jaccard!);
    });
  });

  test('entirely new document: every chunk new, regenerate with high confidence', () => {
    const { parents, children } = entirelyNewDocument(6);
    const results = dedupVersion(children, parents);
    for (const r of results) {
      expect(r).toMatchObject({
        dedup_strategy: 'new',
        is_reused: false,
        dedup_source_chunk_id: null,
        reused_sentences_count: 0,
        content_reuse_ratio: 0,
        embedding_recommendation: 'regenerate',
        recommendation_confidence: 'high',
      });
      expect(r.dedup_confidence).toBeLessThan(0.1);
    }
  });

  test('results are deterministic', () => {
    const { parents, children } = lightlyRewrittenSection(5);
    expect(dedupVersion(children, parents)).toEqual(dedupVersion(children, parents));
  });
});
