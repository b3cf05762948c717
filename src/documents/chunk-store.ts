/**
 * Chunk rows and their vectors (the chunk_embeddings table, keyed by document_chunks.seq and
 * deleted with its chunk by cascade). On SQLite a vector's sign bits are stored beside it and kept
 * in the server's memory for search, one partition per variant (search/vector-index.ts): a write
 * drops its variant's partition, read again when next searched.
 */
import { asc, eq, getTableColumns } from "drizzle-orm";
import type { WorkspaceScope } from "../tenancy/scope";
import { signBits } from "../cache/vector-codec";
import { documentChunks } from "./schema";
import { forgetVariantVectors } from "./search/vector-index";

export type ChunkRow = typeof documentChunks.$inferSelect;
export type NewChunk = Omit<typeof documentChunks.$inferInsert, "workspaceId" | "seq">;

/**
 * One cached statement per chunk row instead of drizzle's multi-row insert: drizzle builds and
 * SQLite compiles a new statement of 33 × N parameters per call, which held the event loop for
 * tens of milliseconds inside the variant's write transaction. Values are encoded by the
 * schema's own columns (JSON, booleans, defaults), so rows read back through drizzle as before.
 */
const CHUNK_COLUMNS = Object.entries(getTableColumns(documentChunks)).filter(([key]) => key !== "seq" && key !== "workspaceId");
const INSERT_CHUNK = `insert into document_chunks (workspace_id, ${CHUNK_COLUMNS.map(([, column]) => column.name).join(", ")})
  values ($workspace_id, ${CHUNK_COLUMNS.map(([key]) => `$${key}`).join(", ")}) returning seq`;
/** PostgreSQL derives the sign bits itself (a generated column, migration postgres/0009). */
const INSERT_VECTOR = {
  sqlite: "insert into chunk_embeddings(chunk_seq, workspace_id, embedding, sign_bits) values ($seq, $workspace_id, $embedding, $sign_bits)",
  postgres: "insert into chunk_embeddings(chunk_seq, workspace_id, embedding) values ($seq, $workspace_id, $embedding)",
};

/** Inserts chunks and one vector per chunk (same order), in the caller's transaction. */
export async function writeChunks(scope: WorkspaceScope, chunks: NewChunk[], vectors: Float32Array[]): Promise<void> {
  if (chunks.length !== vectors.length) throw new Error(`writeChunks: ${chunks.length} chunks but ${vectors.length} vectors`);
  for (const [i, chunk] of chunks.entries()) {
    const values = Object.fromEntries(
      CHUNK_COLUMNS.map(([key, column]) => {
        // An omitted column takes the schema's default, as drizzle's own insert would give it.
        const given = (chunk as Record<string, unknown>)[key];
        const value = given === undefined ? (column.defaultFn?.() ?? column.default) : given;
        return [key, value === undefined || value === null ? null : column.mapToDriverValue(value)];
      }),
    );
    const [row] = await scope.all<{ seq: number }>(INSERT_CHUNK, values);
    const vector = vectors[i]!;
    if (scope.dialect === "postgres") await scope.run(INSERT_VECTOR.postgres, { seq: row!.seq, embedding: vector });
    else await scope.run(INSERT_VECTOR.sqlite, { seq: row!.seq, embedding: vector, sign_bits: signBits(vector) });
  }
  forgetVariantVectors(scope, chunks.map((chunk) => chunk.variantId));
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
