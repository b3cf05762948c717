import { dedupChunk } from './dedup-chunk';
import { buildParentIndex } from './parent-index';
import type { ChildChunk, DedupResult, ParentChunk } from './types';

/**
 * Dedup every chunk of a new version against its parent variant's chunks (in document order).
 * No embeddings are compared here: the point is to decide which chunks need one at all.
 */
export function dedupVersion(children: readonly ChildChunk[], parents: readonly ParentChunk[]): DedupResult[] {
  const index = buildParentIndex(parents);
  return children.map((child) => dedupChunk(child, index));
}
