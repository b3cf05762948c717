/**
 * The vector side of search on SQLite: chunk sign bits in the server's memory, one partition of
 * the storage's SignBitIndex per document variant, reached through WorkspaceScope.signBits (so a
 * search reads its own workspace's partitions only). A search scans the partitions of the variants
 * it searches — deleted documents, old versions and duplicates are simply not among them — and
 * the nearest are re-scored exactly from chunk_embeddings (rankings.ts). With chunk filters
 * (types, sections, pages, metadata, …) only the candidate chunks the database names are scanned.
 *
 * A variant's chunks are written while it is processing (not yet searched) and deleted with it;
 * either way its partition is dropped, inside the writing transaction, and read again from the
 * rows when next searched. Dropping is always safe (a rolled-back write or delete only costs a
 * reload), so memory never disagrees with the rows a search can reach. A restart, or an eviction
 * (the index's limits, shared with the semantic cache), loads partitions again on the next search.
 *
 * Memory: 48 bytes of bits and an 8-byte id per chunk, up to twice that while a partition grows,
 * plus a few hundred bytes per variant: ~5.6–11 MB per 100,000 chunks.
 */
import { signBits } from "../../cache/vector-codec";
import { nearestAcross, readPaged, type WorkspaceSignBits } from "../../db/sign-bit-index";
import type { WorkspaceScope } from "../../tenancy/scope";
import type { SearchedVariant } from "./candidates";

/** A variant's partition (the semantic cache's scope keys are SHA-256 hex, never this). */
export const variantPartition = (variantId: string) => `document_chunks:${variantId}`;

/** These variants' chunks were written or deleted: their partitions are read again when next searched. */
export function forgetVariantVectors(scope: WorkspaceScope, variantIds: Iterable<string>): void {
  const index = scope.signBits;
  if (index) for (const variantId of new Set(variantIds)) index.drop(variantPartition(variantId));
}

/**
 * The `count` chunks of `variants` nearest to the query by sign bits, nearest first; with
 * `candidates` (chunk filters), among those seqs only — all of them when there are no more.
 */
export async function nearestChunks(
  scope: WorkspaceScope,
  index: WorkspaceSignBits,
  variants: SearchedVariant[],
  vector: Float32Array,
  count: number,
  candidates?: number[],
): Promise<number[]> {
  if (candidates && candidates.length <= count) return candidates;
  const partitions = await Promise.all(variants.map(({ variantId }) => index.partition(variantPartition(variantId), () => variantRows(scope, variantId))));
  const wanted = candidates && new Set(candidates);
  return nearestAcross(partitions, signBits(vector), count, wanted && ((seq) => wanted.has(seq)));
}

/** A variant's chunk seqs and sign bits. */
function variantRows(scope: WorkspaceScope, variantId: string): Promise<{ id: number; bits: Uint8Array }[]> {
  return readPaged((after, limit) =>
    scope.all(
      `select c.seq as id, e.sign_bits as bits from document_chunks c cross join chunk_embeddings e on e.chunk_seq = c.seq and e.workspace_id = $workspace_id
        where c.workspace_id = $workspace_id and c.variant_id = $variant_id and c.seq > $after order by c.seq limit ${limit}`,
      { variant_id: variantId, after },
    ),
  );
}
