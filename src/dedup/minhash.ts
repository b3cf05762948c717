/**
 * MinHash signatures over word shingles, and LSH band keys to find candidate pairs without
 * comparing every child with every parent.
 *
 * - Words are runs of letters/digits of the normalised text; shingles are SHINGLE_WORDS
 *   consecutive words (a text shorter than that is one shingle). Word shingles, not character
 *   shingles: an edited word then changes a few shingles of its sentence and nothing else.
 * - Each shingle is hashed once (FNV-1a per word, combined in order); permutation j is
 *   `xorshift(imul(h ^ seed_j, mult_j))` with seeds from a fixed splitmix-style sequence, so
 *   signatures are identical across runs and processes (they could be stored).
 * - The share of equal rows of two signatures estimates the Jaccard similarity of the shingle
 *   sets (standard error ≈ sqrt(J(1-J)/128) ≈ 0.044 at J = 0.5).
 * - LSH: LSH_BANDS bands of LSH_BAND_ROWS rows; two texts become candidates when one band is
 *   equal. With 42 × 3 the pick-up probability is 1-(1-J³)^42: 0.996 at J = 0.5, 0.04 at J = 0.1.
 */

export const MINHASH_PERMUTATIONS = 128;
export const SHINGLE_WORDS = 3;
export const LSH_BAND_ROWS = 3;
export const LSH_BANDS = 42;

const WORD = /[\p{L}\p{N}]+/gu;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const SEEDS = new Uint32Array(MINHASH_PERMUTATIONS);
const MULTIPLIERS = new Uint32Array(MINHASH_PERMUTATIONS);
for (let j = 0, state = 0x5eed_d0c5; j < MINHASH_PERMUTATIONS; j++) {
  state = fmix32(state + 0x9e3779b9);
  SEEDS[j] = state;
  state = fmix32(state + 0x9e3779b9);
  MULTIPLIERS[j] = state | 1; // odd, so the multiplication is a bijection on 32 bits
}

function hashWord(word: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

function shingleHashes(normalisedText: string): Uint32Array {
  const words = normalisedText.match(WORD) ?? [];
  if (words.length === 0) return new Uint32Array(0);
  const wordHashes = words.map(hashWord);
  const count = Math.max(1, wordHashes.length - SHINGLE_WORDS + 1);
  const shingles = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    let h = FNV_OFFSET;
    for (let w = i; w < Math.min(i + SHINGLE_WORDS, wordHashes.length); w++) h = Math.imul(h ^ wordHashes[w], FNV_PRIME);
    shingles[i] = fmix32(h);
  }
  return shingles;
}

/** Signature of a normalised text; null when it has no words (nothing to compare). */
export function minhashSignature(normalisedText: string): Uint32Array | null {
  const shingles = shingleHashes(normalisedText);
  if (shingles.length === 0) return null;
  const signature = new Uint32Array(MINHASH_PERMUTATIONS).fill(0xffffffff);
  for (let i = 0; i < shingles.length; i++) {
    const h = shingles[i];
    for (let j = 0; j < MINHASH_PERMUTATIONS; j++) {
      let v = Math.imul(h ^ SEEDS[j], MULTIPLIERS[j]);
      v = (v ^ (v >>> 15)) >>> 0;
      if (v < signature[j]) signature[j] = v;
    }
  }
  return signature;
}

export function estimateJaccard(a: Uint32Array, b: Uint32Array): number {
  let equal = 0;
  for (let j = 0; j < MINHASH_PERMUTATIONS; j++) if (a[j] === b[j]) equal++;
  return equal / MINHASH_PERMUTATIONS;
}

/** One integer key per band (band number in the high part), for a Map of parent buckets. */
export function lshBandKeys(signature: Uint32Array): number[] {
  const keys: number[] = [];
  for (let band = 0; band < LSH_BANDS; band++) {
    let h = FNV_OFFSET;
    for (let row = band * LSH_BAND_ROWS; row < (band + 1) * LSH_BAND_ROWS; row++) h = Math.imul(h ^ signature[row], FNV_PRIME);
    keys.push(band * 0x1_0000_0000 + fmix32(h));
  }
  return keys;
}
