/**
 * Search's migrations over chunks stored before them: 0020 indexes them for keywords (a database
 * migrated up to 0019 with a chunk in it, then opened with every migration, finds that chunk by
 * keyword); 0024 moves their vectors out of vec0 with their sign bits.
 */
import { afterAll, expect, test } from "bun:test";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { signBits } from "../../src/cache/vector-codec";
import { openSqlite, type SqliteStorage } from "../../src/db/sqlite";
import { assetPaths } from "../../src/runtime/assets";
import { tempDir } from "../support/temp-dir";

const dataDir = tempDir("sieve-search-migration-");
const dirs: string[] = [];
const assets = assetPaths();

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh database migrated up to (not including) migration `first`. */
function migratedBefore(first: string): { dataDir: string; storage: SqliteStorage } {
  const dataDir = tempDir("sieve-search-migration-");
  const olderMigrations = tempDir(`sieve-migrations-${first}-`);
  dirs.push(dataDir, olderMigrations);
  cpSync(assets.migrationsDir, olderMigrations, { recursive: true });
  const journalPath = join(olderMigrations, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8"));
  journal.entries = journal.entries.filter((entry: { tag: string }) => entry.tag < first);
  writeFileSync(journalPath, JSON.stringify(journal));
  return { dataDir, storage: openSqlite({ dataDir, vecExtension: assets.vecExtension, migrationsDir: olderMigrations }) };
}

/** Workspace w, one document with one completed variant x and its chunk c. */
function insertChunk(storage: SqliteStorage): void {
  storage.sqlite.exec(`
    insert into workspaces (id, name, created_at) values ('w', 'w', 0);
    insert into documents (id, workspace_id, filename, content_hash, file_size_bytes, mime_type, format, page_count, is_canonical, created_at)
      values ('d', 'w', 'a.md', 'h', 1, 'text/markdown', 'markdown', 1, 1, 0);
    insert into document_versions (id, workspace_id, document_id, chain_id, version_number, created_at) values ('v', 'w', 'd', 'd', 1, 0);
    insert into document_variants (id, workspace_id, version_id, chunking_strategy, chunk_size, chunk_overlap, status, created_at)
      values ('x', 'w', 'v', 'recursive', 512, 50, 'completed', 0);
    insert into document_chunks (id, workspace_id, variant_id, chunk_index, text, text_hash, page_range, section_hierarchy, tokens, metadata, chunk_type,
        contains_table, chunking_strategy, dedup_strategy, dedup_confidence, is_reused, total_sentences, reused_sentences_count, new_sentences_count,
        content_reuse_ratio, embedding_recommendation, recommendation_confidence, dedup_metadata, embedding_copied)
      values ('c', 'w', 'x', 0, 'Error E4711-Q means the pump stalled.', 't', '[]', '[]', 9, '{}', 'text', 0, 'recursive', 'new', 0, 0, 1, 0, 1, 0, 'regenerate', 'high', '{}', 0);
  `);
}

test("chunks written before the search migration are found by keyword after it", async () => {
  const { dataDir, storage: before } = migratedBefore("0020");
  expect(before.sqlite.query("select count(*) as n from sqlite_master where name = 'chunk_search'").get()).toEqual({ n: 0 });
  insertChunk(before);
  await before.close();

  const after = openSqlite({ dataDir, vecExtension: assets.vecExtension, migrationsDir: assets.migrationsDir });
  try {
    const match = (query: string) => after.sqlite.query("select c.id from chunk_search s join document_chunks c on c.seq = s.rowid where chunk_search match ?").all(query);
    expect(match('"E4711-Q"')).toEqual([{ id: "c" }]);
    expect(match('"E4711-R"')).toEqual([]);
    // Kept in step from here on: deleting the chunk removes it from the index.
    after.sqlite.exec("delete from document_chunks where id = 'c'");
    expect(match('"E4711-Q"')).toEqual([]);
  } finally {
    await after.close();
  }
});

test("migration 0024 moves chunk vectors out of vec0 with their sign bits; a vector without its chunk is not kept", async () => {
  const { dataDir, storage: before } = migratedBefore("0024");
  insertChunk(before);
  const vector = new Float32Array(384).map((_, i) => Math.sin(i * 1.3) / 14);
  const seq = (before.sqlite.query("select seq from document_chunks where id = 'c'").get() as { seq: number }).seq;
  const insert = before.sqlite.query("insert into chunk_embeddings (chunk_seq, workspace_id, embedding) values (?1, 'w', ?2)");
  insert.run(seq, new Uint8Array(vector.buffer));
  insert.run(seq + 1000, new Uint8Array(vector.buffer)); // vec0 had no foreign key: a vector its chunk's delete left
  await before.close();

  const after = openSqlite({ dataDir, vecExtension: assets.vecExtension, migrationsDir: assets.migrationsDir });
  try {
    const rows = after.sqlite.query("select chunk_seq, workspace_id, embedding, sign_bits from chunk_embeddings").all() as any[];
    expect(rows.map((row) => [row.chunk_seq, row.workspace_id])).toEqual([[seq, "w"]]);
    expect(new Float32Array(new Uint8Array(rows[0].embedding).buffer)).toEqual(vector);
    expect(new Uint8Array(rows[0].sign_bits)).toEqual(signBits(vector));
    // The vector goes with its chunk now.
    after.sqlite.exec("delete from document_chunks where id = 'c'");
    expect(after.sqlite.query("select count(*) as n from chunk_embeddings").get()).toEqual({ n: 0 });
  } finally {
    await after.close();
  }
});
