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
  const builder = new ParentIndexBuilder(parents.length);
  for (const parent of parents) builder.add(parent);
  return builder.finish(parents);
}

/**
 * The index built one parent chunk at a time, in document order, so a caller on the server's
 * thread can let other work run between chunks (MinHash over thousands of chunks takes seconds).
 */
export class ParentIndexBuilder {
  private readonly chunkByText = new Map<string, number>();
  private readonly sentencePositions = new Map<string, number[]>();
  private readonly sentenceAt: string[] = [];
  private readonly chunkOfSentence: number[] = [];
  private readonly sentenceCounts: Int32Array;
  private readonly signatures: (Uint32Array | null)[] = [];
  private readonly lshBuckets = new Map<number, number[]>();
  private readonly embeddingNorms: Float64Array;
  private added = 0;

  constructor(count: number) {
    this.sentenceCounts = new Int32Array(count);
    this.embeddingNorms = new Float64Array(count);
  }

  add(parent: ParentChunk): void {
    const ordinal = this.added++;
    const text = normaliseText(parent.text);
    if (text && !this.chunkByText.has(text)) this.chunkByText.set(text, ordinal);

    const keys = sentenceKeys(parent.text);
    this.sentenceCounts[ordinal] = keys.length;
    for (const key of keys) {
      const position = this.sentenceAt.length;
      this.sentenceAt.push(key);
      this.chunkOfSentence.push(ordinal);
      const positions = this.sentencePositions.get(key);
      if (positions) positions.push(position);
      else this.sentencePositions.set(key, [position]);
    }

    const signature = minhashSignature(text);
    this.signatures.push(signature);
    if (signature) {
      for (const key of lshBandKeys(signature)) {
        const bucket = this.lshBuckets.get(key);
        if (bucket) bucket.push(ordinal);
        else this.lshBuckets.set(key, [ordinal]);
      }
    }

    if (parent.embedding) this.embeddingNorms[ordinal] = vectorNorm(parent.embedding);
  }

  /** `parents`: the chunks added, in the order they were added. */
  finish(parents: readonly ParentChunk[]): ParentIndex {
    return {
      chunks: parents,
      chunkByText: this.chunkByText,
      sentencePositions: this.sentencePositions,
      sentenceAt: this.sentenceAt,
      chunkOfSentence: Int32Array.from(this.chunkOfSentence),
      sentenceCounts: this.sentenceCounts,
      signatures: this.signatures,
      lshBuckets: this.lshBuckets,
      embeddingNorms: this.embeddingNorms,
    };
  }
}
