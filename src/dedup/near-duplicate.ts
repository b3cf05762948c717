import { cosineWithNorms, vectorNorm } from './cosine';
import { estimateJaccard, lshBandKeys, minhashSignature } from './minhash';
import type { ParentIndex } from './parent-index';

/** Closest parent chunk by each near-duplicate measure (ordinal -1: none found). */
export type NearDuplicate = {
  jaccard: number;
  jaccardOrdinal: number;
  /** null when no child embedding was given or no parent has one. */
  cosine: number | null;
  cosineOrdinal: number;
};

/**
 * MinHash is compared only with candidate parents: those sharing an LSH band with the child,
 * plus `extraCandidates` (parents that supplied reused sentences). Cosine, when the child has
 * an embedding, is compared with every parent that has one: a paraphrase may share no words,
 * so no text index can nominate it, and one dot product per parent is cheap next to embedding.
 */
export function findNearDuplicate(
  normalisedText: string,
  index: ParentIndex,
  extraCandidates: Iterable<number>,
  childEmbedding: Float32Array | undefined,
): NearDuplicate {
  const best: NearDuplicate = { jaccard: 0, jaccardOrdinal: -1, cosine: null, cosineOrdinal: -1 };

  const signature = minhashSignature(normalisedText);
  if (signature) {
    const candidates = new Set(extraCandidates);
    for (const key of lshBandKeys(signature)) for (const ordinal of index.lshBuckets.get(key) ?? []) candidates.add(ordinal);
    // Ascending ordinals so that ties go to the earliest parent chunk, run after run.
    for (const ordinal of [...candidates].sort((a, b) => a - b)) {
      const parentSignature = index.signatures[ordinal];
      if (!parentSignature) continue;
      const jaccard = estimateJaccard(signature, parentSignature);
      if (jaccard > best.jaccard) Object.assign(best, { jaccard, jaccardOrdinal: ordinal });
    }
  }

  if (childEmbedding) {
    const childNorm = vectorNorm(childEmbedding);
    index.chunks.forEach((parent, ordinal) => {
      if (!parent.embedding) return;
      const cosine = cosineWithNorms(childEmbedding, childNorm, parent.embedding, index.embeddingNorms[ordinal]);
      if (best.cosine === null || cosine > best.cosine) Object.assign(best, { cosine, cosineOrdinal: ordinal });
    });
  }

  return best;
}
