/**
 * Migration 0020 indexes the chunks stored before it: a database migrated up to 0019 with a chunk
 * in it, then opened with every migration, finds that chunk by keyword.
 */
import { afterAll, expect, test } from "bun:test";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSqlite } from "../../src/db/sqlite";
import { assetPaths } from "../../src/runtime/assets";
import { tempDir } from "../support/temp-dir";

const dataDir = tempDir("sieve-search-migration-");
const olderMigrations = tempDir("sieve-migrations-0016-");

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(olderMigrations, { recursive: true, force: true });
});

test("chunks written before the search migration are found by keyword after it", async () => {
  const assets = assetPaths();
  cpSync(assets.migrationsDir, olderMigrations, { recursive: true });
  const journalPath = join(olderMigrations, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8"));
  journal.entries = journal.entries.filter((entry: { tag: string }) => entry.tag < "0020");
  writeFileSync(journalPath, JSON.stringify(journal));

  const before = openSqlite({ dataDir, vecExtension: assets.vecExtension, migrationsDir: olderMigrations });
  expect(before.sqlite.query("select count(*) as n from sqlite_master where name = 'chunk_search'").get()).toEqual({ n: 0 });
  before.sqlite.exec(`
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
