/**
 * One schema definition drives both dialects: after their own migrations, a fresh SQLite file and
 * a fresh PostgreSQL database hold the same tables with the same columns (and, for the drizzle
 * tables, the same nullability). A table or column added to one dialect's migrations only — a
 * forgotten `drizzle-kit generate` for PostgreSQL — fails here.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { SQL } from "bun";
import { startCluster, type PgCluster } from "../../scripts/pg/cluster";
import { openStorage } from "../../src/db/connection";
import { openSqlite, type SqliteStorage } from "../../src/db/sqlite";
import { assetPaths } from "../../src/runtime/assets";
import { tempDir } from "../support/sieve";

type Columns = Record<string, Record<string, boolean>>; // table → column → nullable

let cluster: PgCluster;
let sqlite: SqliteStorage;
const dataDir = tempDir("sieve-schema-");

beforeAll(async () => {
  cluster = await startCluster();
  const assets = assetPaths();
  sqlite = openSqlite({ dataDir, vecExtension: assets.vecExtension, migrationsDir: assets.migrationsDir });
  // The server's own start-up path: migrations applied under the advisory lock.
  await (await openStorage({ dataDir, databaseUrl: cluster.url, vecExtension: assets.vecExtension, migrationsDir: assets.migrationsDir })).close();
});

afterAll(async () => {
  await sqlite?.close();
  cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function sqliteColumns(): { columns: Columns; vectorTables: string[] } {
  const tables = sqlite.sqlite.query<{ name: string; sql: string }, []>("select name, sql from sqlite_master where type = 'table'").all();
  const vectorTables = tables.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql)).map((t) => t.name);
  // sqlite-vec keeps its data in shadow tables named after the virtual table.
  const own = tables.filter((t) => !t.name.startsWith("sqlite_") && t.name !== "__drizzle_migrations" && !vectorTables.some((v) => t.name.startsWith(`${v}_`)));
  const columns: Columns = {};
  for (const { name } of own) {
    const info = sqlite.sqlite.query<{ name: string; notnull: number }, []>(`pragma table_info("${name}")`).all();
    columns[name] = Object.fromEntries(info.map((c) => [c.name, c.notnull === 0]));
  }
  return { columns, vectorTables };
}

async function postgresColumns(): Promise<Columns> {
  const client = new SQL(cluster.url);
  try {
    const rows: { table_name: string; column_name: string; is_nullable: string }[] = await client.unsafe(
      "select table_name, column_name, is_nullable from information_schema.columns where table_schema = 'public'",
    );
    const columns: Columns = {};
    for (const row of rows) (columns[row.table_name] ??= {})[row.column_name] = row.is_nullable === "YES";
    return columns;
  } finally {
    await client.close();
  }
}

test("SQLite and PostgreSQL have the same tables and columns", async () => {
  const { columns: lite, vectorTables } = sqliteColumns();
  const pg = await postgresColumns();
  // The one difference by design: the semantic cache's sign bits. SQLite keeps them in
  // cache_entries (searched in memory, src/db/sign-bit-index.ts), PostgreSQL in cache_vectors.
  expect(lite.cache_entries?.sign_bits).toBe(true);
  delete lite.cache_entries!.sign_bits;
  expect(Object.keys(pg.cache_vectors!).sort()).toEqual(["embedding", "entry_id", "scope_key", "workspace_id"]);
  delete pg.cache_vectors;
  // Chunk search (migrations 0020 / postgres 0009): SQLite's FTS5 table, PostgreSQL's tsvector column.
  expect(vectorTables).toContain("chunk_search");
  delete lite.chunk_search;
  expect(pg.document_chunks?.search_text).toBe(true);
  delete pg.document_chunks!.search_text;
  // A chunk's sign bits: written beside its vector on SQLite (migration 0024), generated on PostgreSQL.
  expect(lite.chunk_embeddings?.sign_bits).toBe(false);
  expect(pg.chunk_embeddings?.sign_bits).toBe(true);
  delete lite.chunk_embeddings!.sign_bits;
  delete pg.chunk_embeddings!.sign_bits;
  expect(Object.keys(pg).sort()).toEqual(Object.keys(lite).sort());
  for (const table of Object.keys(lite)) {
    if (vectorTables.includes(table)) {
      // vec0 declares no NOT NULL; the vector tables compare by column names.
      expect({ table, columns: Object.keys(pg[table]!).sort() }).toEqual({ table, columns: Object.keys(lite[table]!).sort() });
    } else {
      expect({ table, columns: pg[table] }).toEqual({ table, columns: lite[table] });
    }
  }
  expect(vectorTables.sort()).toEqual(["chunk_search", "firewall_builtin_vectors", "firewall_custom_vectors"]);
});
