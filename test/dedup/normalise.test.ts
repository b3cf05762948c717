import { expect, test } from 'bun:test';
import { normaliseText } from '../../src/dedup/normalise';

test('folds case, whitespace, NFKC forms and typographic quotes', () => {
  expect(normaliseText('  The  “Quick”\n\tＦｏｘ’s   ﬁle—done  ')).toBe('the "quick" fox\'s file-done');
});

test('strips punctuation and symbols at both ends only', () => {
  expect(normaliseText('## Results: 3.14 (approx.) **')).toBe('results: 3.14 (approx');
  expect(normaliseText('- item one.')).toBe('item one');
  expect(normaliseText('| a | b |')).toBe('a | b');
});

test('removes invisible characters', () => {
  expect(normaliseText('zero\u200Bwidth soft\u00ADhyphen')).toBe('zerowidth softhyphen');
});

test('punctuation-only text normalises to empty', () => {
  expect(normaliseText(' --- | *** ')).toBe('');
});
