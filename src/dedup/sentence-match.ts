import type { ParentIndex } from './parent-index';

/**
 * How a child chunk's sentences map onto the parent's sentences.
 *
 * Each child sentence key is looked up in the parent's sentence index; a hit is a reused
 * sentence at some parent position (document-order sentence number).
 *
 * Source block: a maximal run of the child's reused sentences, in child order, where each one
 * sits after the previous one in the parent (higher position) and in the same or the next
 * parent chunk. New sentences in between do not break a block (that is an in-place edit), nor
 * does crossing into the next parent chunk (that is a shifted chunk boundary). Going backwards
 * in the parent, or jumping past a whole parent chunk, starts a new block: the chunk then holds
 * text that was not contiguous in the parent (moved or merged paragraphs).
 *
 * Interleaved new run: a maximal run of new sentences with reused sentences on both sides.
 *
 * A sentence that occurs several times in the parent (a repeated heading, boilerplate) takes the
 * occurrence that continues the current block; a block starts at the occurrence followed in the
 * parent by the child's next sentence, else at the first occurrence.
 */
export type SentenceMatch = {
  total: number;
  reused: number;
  /** Parent ordinal → sentences of this child chunk it supplied. */
  reusedByParent: Map<number, number>;
  sourceBlocks: number;
  interleavedNewRuns: number;
};

export function matchSentences(keys: readonly string[], index: ParentIndex): SentenceMatch {
  const reusedByParent = new Map<number, number>();
  let reused = 0;
  let sourceBlocks = 0;
  let interleavedNewRuns = 0;
  let previous = -1; // parent position of the last reused sentence
  let newSinceReuse = false;

  keys.forEach((key, i) => {
    const positions = index.sentencePositions.get(key);
    if (!positions) {
      newSinceReuse = true;
      return;
    }
    const continuing = previous >= 0 ? continuation(index, positions, previous) : undefined;
    const position = continuing ?? blockStart(index, positions, keys[i + 1]);
    if (continuing === undefined) sourceBlocks++;
    if (previous >= 0 && newSinceReuse) interleavedNewRuns++;

    const ordinal = index.chunkOfSentence[position];
    reusedByParent.set(ordinal, (reusedByParent.get(ordinal) ?? 0) + 1);
    reused++;
    previous = position;
    newSinceReuse = false;
  });

  return { total: keys.length, reused, reusedByParent, sourceBlocks, interleavedNewRuns };
}

/**
 * The occurrence that continues the block ending at `previous`: the first one after it, if that
 * lies in the same or the next parent chunk (a later occurrence can only be further away).
 * Binary search, because a line such as "}" in code can occur thousands of times.
 */
function continuation(index: ParentIndex, positions: readonly number[], previous: number): number | undefined {
  let lo = 0;
  let hi = positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (positions[mid] > previous) hi = mid;
    else lo = mid + 1;
  }
  const next = positions[lo];
  return next !== undefined && index.chunkOfSentence[next] - index.chunkOfSentence[previous] <= 1 ? next : undefined;
}

function blockStart(index: ParentIndex, positions: readonly number[], nextKey: string | undefined): number {
  if (positions.length > 1 && nextKey !== undefined) {
    const followed = positions.find((p) => index.sentenceAt[p + 1] === nextKey);
    if (followed !== undefined) return followed;
  }
  return positions[0];
}
