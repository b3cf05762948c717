/**
 * Chunk rows and their vectors (the chunk_embeddings table, keyed by document_chunks.seq; a vec0
 * table on SQLite, bytea rows on PostgreSQL). vec0 has no foreign keys, so on SQLite vectors are
 * deleted here, beside their chunks, in the caller's transaction; PostgreSQL's cascade does it.
 */
import { asc, eq } from "drizzle-orm";
import type { WorkspaceScope } from "../tenancy/scope";
import { documentChunks } from "./schema";

export type ChunkRow = typeof documentChunks.$inferSelect;
export type NewChunk = Omit<typeof documentChunks.$inferInsert, "workspaceId" | "seq">;

// 33 columns per row; SQLite allows 32766 bound parameters per statement.
const INSERT_BATCH = 500;

/** Inserts chunks and one vector per chunk (same order). */
export async function writeChunks(scope: WorkspaceScope, chunks: NewChunk[], vectors: Float32Array[]): Promise<void> {
  if (chunks.length !== vectors.length) throw new Error(`writeChunks: ${chunks.length} chunks but ${vectors.length} vectors`);
  for (let start = 0; start < chunks.length; start += INSERT_BATCH) {
    const inserted = await scope.insert(documentChunks, chunks.slice(start, start + INSERT_BATCH)).returning({ seq: documentChunks.seq });
    for (const [i, { seq }] of inserted.entries()) {
      await scope.run("insert into chunk_embeddings(chunk_seq, workspace_id, embedding) values ($seq, $workspace_id, $embedding)", {
        seq,
        embedding: vectors[start + i],
      });
    }
  }
}

export async function readChunks(scope: WorkspaceScope, variantId: string): Promise<ChunkRow[]> {
  return scope.select(documentChunks, eq(documentChunks.variantId, variantId)).orderBy(asc(documentChunks.chunkIndex));
}

/** Chunk id → stored vector, for every chunk of the variant. */
export async function readVectors(scope: WorkspaceScope, variantId: string): Promise<Map<string, Float32Array>> {
  const rows = await scope.all<{ id: string; embedding: Uint8Array }>(
    `select c.id as id, e.embedding as embedding
       from document_chunks c join chunk_embeddings e on e.chunk_seq = c.seq and e.workspace_id = $workspace_id
      where c.workspace_id = $workspace_id and c.variant_id = $variant_id`,
    { variant_id: variantId },
  );
  // Copy into an aligned buffer: the blob's byte offset need not be a multiple of 4.
  return new Map(rows.map((row) => [row.id, new Float32Array(row.embedding.slice().buffer)]));
}

/** Removes the vectors of these variants' chunks; the chunk rows go with their variant (cascade). */
export async function deleteVectorsOf(scope: WorkspaceScope, variantIds: string[]): Promise<void> {
  if (variantIds.length === 0 || scope.dialect === "postgres") return;
  await scope.run(
    `delete from chunk_embeddings
      where workspace_id = $workspace_id
        and chunk_seq in (select seq from document_chunks
                           where workspace_id = $workspace_id and variant_id in (select value from json_each($variant_ids)))`,
    { variant_ids: JSON.stringify(variantIds) },
  );
}
