import { describe, expect, test } from 'bun:test';
import { buildParentIndex } from '../../src/dedup/parent-index';
import { sentenceKeys } from '../../src/dedup/sentence-keys';
import { matchSentences } from '../../src/dedup/sentence-match';

// Four parent chunks of five sentences: S0–S4, S5–S9, S10–S14, S15–S19.
const S = (i: number) => `Sentence ${i} is about subject ${i}.`;
const NEW = (i: number) => `A brand new remark number ${i}.`;
const parentChunk = (from: number) => [0, 1, 2, 3, 4].map((k) => S(from + k)).join(' ');
const index = buildParentIndex([0, 5, 10, 15].map((from, i) => ({ id: `p${i}`, text: parentChunk(from) })));
const match = (sentences: string[]) => matchSentences(sentenceKeys(sentences.join(' ')), index);

describe('matchSentences', () => {
  test('a chunk whose boundary moved into the next parent chunk is one source block', () => {
    const m = match([S(3), S(4), S(5), S(6), S(7)]);
    expect(m).toMatchObject({ total: 5, reused: 5, sourceBlocks: 1, interleavedNewRuns: 0 });
    expect([...m.reusedByParent]).toEqual([[0, 2], [1, 3]]);
  });

  test('an edited sentence in the middle is one interleaved run, still one block', () => {
    expect(match([S(1), S(2), NEW(1), S(4)])).toMatchObject({ reused: 3, sourceBlocks: 1, interleavedNewRuns: 1 });
  });

  test('skipping sentences within the same or the next parent chunk keeps one block', () => {
    expect(match([S(0), S(1), S(2), S(8), S(9)])).toMatchObject({ sourceBlocks: 1 });
  });

  test('jumping past a whole parent chunk starts a new block', () => {
    expect(match([S(0), S(1), S(15), S(16)])).toMatchObject({ reused: 4, sourceBlocks: 2 });
  });

  test('going backwards in the parent starts a new block', () => {
    expect(match([S(10), S(11), S(2), S(3)])).toMatchObject({ sourceBlocks: 2 });
  });

  test('new sentences at two places between reused ones are two interleaved runs', () => {
    expect(match([S(0), NEW(1), S(1), NEW(2), NEW(3), S(2), NEW(4)])).toMatchObject({
      total: 7,
      reused: 3,
      sourceBlocks: 1,
      interleavedNewRuns: 2,
    });
  });

  test('a sentence repeated in the parent takes the occurrence that starts a continuous run', () => {
    const withHeadings = buildParentIndex([
      { id: 'a', text: `## Summary\n${S(0)} ${S(1)}` },
      { id: 'b', text: `## Summary\n${S(2)} ${S(3)}` },
    ]);
    const m = matchSentences(sentenceKeys(`## Summary\n${S(2)} ${S(3)}`), withHeadings);
    expect(m.sourceBlocks).toBe(1);
    expect([...m.reusedByParent]).toEqual([[1, 3]]);

    const across = matchSentences(sentenceKeys(`${S(0)} ${S(1)}\n## Summary\n${S(2)}`), withHeadings);
    expect(across.sourceBlocks).toBe(1); // the second "Summary", which continues the run
    expect([...across.reusedByParent]).toEqual([[0, 2], [1, 2]]);
  });
});
