/**
 * The vector side of search on SQLite: each workspace's chunk sign bits in the server's memory (one
 * partition of the storage's SignBitIndex per workspace, reached through WorkspaceScope.signBits,
 * so a search reads its own workspace's only), scanned by Hamming distance among the search's
 * candidate chunks; the nearest are then re-scored exactly from chunk_embeddings (rankings.ts).
 *
 * The candidates come from the database on every search, so the partition only proposes: a chunk
 * deleted a moment ago is no candidate and cannot be returned, whatever the partition still holds.
 * Writes add their chunks' bits as they insert them (a rolled-back write leaves bits of seqs no
 * candidate names); deletes remove them. A candidate the partition lacks (a delete that was
 * rolled back after its chunks were removed here) makes the search reload the partition from the
 * rows. A restart, or an eviction (the index's limits, shared with the semantic cache), loads it
 * again on the next search: 100,000 chunks in ~0.1–0.2 s.
 *
 * Memory: 48 bytes of bits and an 8-byte id per chunk, up to twice that while a partition grows
 * (~5.6–11 MB per 100,000 chunks).
 */
import { signBits } from "../../cache/vector-codec";
import { readPaged, type SignBitPartition, type WorkspaceSignBits } from "../../db/sign-bit-index";
import type { WorkspaceScope } from "../../tenancy/scope";

/** The workspace's partition of chunk vectors (the semantic cache's scope keys are SHA-256 hex, never this). */
export const CHUNK_PARTITION = "document_chunks";

/** After their rows are inserted: the chunks' sign bits (id = seq) join the workspace's partition if it is loaded. */
export function indexChunkVectors(scope: WorkspaceScope, chunks: { id: number; bits: Uint8Array }[]): void {
  if (chunks.length > 0) scope.signBits?.addAll(CHUNK_PARTITION, chunks);
}

/** Before their rows are deleted (with their chunks, by cascade): the chunks of these variants leave the partition. */
export async function forgetChunkVectors(scope: WorkspaceScope, variantIds: string[]): Promise<void> {
  const index = scope.signBits;
  if (!index || variantIds.length === 0) return;
  const rows = await scope.all<{ seq: number }>(
    `select seq from document_chunks where workspace_id = $workspace_id and variant_id in (select value from json_each($variant_ids))`,
    { variant_ids: JSON.stringify(variantIds) },
  );
  if (rows.length > 0) index.removeAll(CHUNK_PARTITION, new Set(rows.map((row) => row.seq)));
}

/**
 * The `count` candidates nearest to the query's sign bits (all of them when there are no more):
 * those to re-score exactly.
 */
export async function nearestCandidates(scope: WorkspaceScope, index: WorkspaceSignBits, candidates: number[], vector: Float32Array, count: number): Promise<number[]> {
  if (candidates.length <= count) return candidates;
  const bits = signBits(vector);
  const wanted = new Set(candidates);
  const search = (partition: SignBitPartition) => {
    let seen = 0;
    const nearest = partition.nearest(bits, count, (seq) => wanted.has(seq) && ++seen > 0);
    return { nearest, complete: seen === wanted.size };
  };
  const first = search(await index.partition(CHUNK_PARTITION, () => partitionRows(scope)));
  if (first.complete) return first.nearest;
  index.drop(CHUNK_PARTITION);
  return search(await index.partition(CHUNK_PARTITION, () => partitionRows(scope))).nearest;
}

/** The workspace's chunk seqs and sign bits. */
function partitionRows(scope: WorkspaceScope): Promise<{ id: number; bits: Uint8Array }[]> {
  return readPaged((after, limit) =>
    scope.all(`select chunk_seq as id, sign_bits as bits from chunk_embeddings where workspace_id = $workspace_id and chunk_seq > $after order by chunk_seq limit ${limit}`, { after }),
  );
}
