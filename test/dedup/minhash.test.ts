import { expect, test } from 'bun:test';
import { estimateJaccard, lshBandKeys, minhashSignature } from '../../src/dedup/minhash';

/** "w<from> … w<to-1>": distinct words, so the 3-shingle Jaccard of two ranges is known exactly. */
function words(from: number, to: number): string {
  return Array.from({ length: to - from }, (_, i) => `w${from + i}`).join(' ');
}

test('signatures are deterministic and identical texts estimate 1', () => {
  const a = minhashSignature(words(0, 100))!;
  expect(minhashSignature(words(0, 100))).toEqual(a);
  expect(estimateJaccard(a, a)).toBe(1);
});

test('estimate is close to the true shingle Jaccard', () => {
  // 148 shingles each, 98 shared: J = 98 / 198 ≈ 0.495; 128 permutations give σ ≈ 0.044.
  const estimate = estimateJaccard(minhashSignature(words(0, 150))!, minhashSignature(words(50, 200))!);
  expect(Math.abs(estimate - 98 / 198)).toBeLessThan(0.1);
});

test('disjoint texts estimate near 0', () => {
  expect(estimateJaccard(minhashSignature(words(0, 150))!, minhashSignature(words(1000, 1150))!)).toBeLessThan(0.05);
});

test('a text without words has no signature', () => {
  expect(minhashSignature('')).toBeNull();
  expect(minhashSignature('-- | **')).toBeNull();
});

test('a text shorter than one shingle still has a signature', () => {
  expect(minhashSignature('hello')).not.toBeNull();
});

test('LSH band keys collide for near duplicates and not for unrelated text', () => {
  const keys = (text: string) => new Set(lshBandKeys(minhashSignature(text)!));
  const base = keys(words(0, 150));
  const near = keys(words(10, 160)); // J = 138 / 158 ≈ 0.87
  const unrelated = keys(words(5000, 5150));
  expect([...near].some((k) => base.has(k))).toBe(true);
  expect([...unrelated].some((k) => base.has(k))).toBe(false);
});
