import { vectorNorm } from './cosine';
import { lshBandKeys, minhashSignature } from './minhash';
import { normaliseText } from './normalise';
import { sentenceKeys } from './sentence-keys';
import type { ParentChunk } from './types';

/**
 * Everything dedupChunk looks up about the parent variant, built once per version.
 * Chunks are referred to by ordinal (their index in `chunks`). Parent sentences are numbered
 * in document order across all chunks ("positions"), which is what lets a child chunk whose
 * boundaries moved still be seen as one continuous run of parent text.
 */
export type ParentIndex = {
  /** Parent chunks in document order (chunk_index ascending). */
  readonly chunks: readonly ParentChunk[];
  /** Normalised chunk text → ordinal of the first chunk with that text. */
  readonly chunkByText: ReadonlyMap<string, number>;
  /** Normalised sentence → every position where it occurs, ascending. */
  readonly sentencePositions: ReadonlyMap<string, readonly number[]>;
  /** Position → normalised sentence. */
  readonly sentenceAt: readonly string[];
  /** Position → ordinal of the chunk holding that sentence. */
  readonly chunkOfSentence: Int32Array;
  /** Ordinal → number of sentences in that chunk. */
  readonly sentenceCounts: Int32Array;
  /** Ordinal → MinHash signature of the normalised chunk text (null: no words). */
  readonly signatures: readonly (Uint32Array | null)[];
  /** LSH band key → ordinals whose signature has that band. */
  readonly lshBuckets: ReadonlyMap<number, readonly number[]>;
  /** Ordinal → norm of the chunk's embedding, 0 when it has none. */
  readonly embeddingNorms: Float64Array;
};

export function buildParentIndex(parents: readonly ParentChunk[]): ParentIndex {
  const chunkByText = new Map<string, number>();
  const sentencePositions = new Map<string, number[]>();
  const sentenceAt: string[] = [];
  const chunkOfSentence: number[] = [];
  const sentenceCounts = new Int32Array(parents.length);
  const signatures: (Uint32Array | null)[] = [];
  const lshBuckets = new Map<number, number[]>();
  const embeddingNorms = new Float64Array(parents.length);

  parents.forEach((parent, ordinal) => {
    const text = normaliseText(parent.text);
    if (text && !chunkByText.has(text)) chunkByText.set(text, ordinal);

    const keys = sentenceKeys(parent.text);
    sentenceCounts[ordinal] = keys.length;
    for (const key of keys) {
      const position = sentenceAt.length;
      sentenceAt.push(key);
      chunkOfSentence.push(ordinal);
      const positions = sentencePositions.get(key);
      if (positions) positions.push(position);
      else sentencePositions.set(key, [position]);
    }

    const signature = minhashSignature(text);
    signatures.push(signature);
    if (signature) {
      for (const key of lshBandKeys(signature)) {
        const bucket = lshBuckets.get(key);
        if (bucket) bucket.push(ordinal);
        else lshBuckets.set(key, [ordinal]);
      }
    }

    if (parent.embedding) embeddingNorms[ordinal] = vectorNorm(parent.embedding);
  });

  return {
    chunks: parents,
    chunkByText,
    sentencePositions,
    sentenceAt,
    chunkOfSentence: Int32Array.from(chunkOfSentence),
    sentenceCounts,
    signatures,
    lshBuckets,
    embeddingNorms,
  };
}
