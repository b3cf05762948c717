import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import * as schema from "./schema";

export type Db = ReturnType<typeof drizzle<typeof schema>>;
export type DatabaseHandle = { sqlite: Database; db: Db; path: string };

export const DATABASE_FILE = "sieve.db";

/**
 * Opens (creating if needed) the one SQLite file that holds all of Sieve's state, loads
 * sqlite-vec and applies pending migrations. sqlite-vec must be loaded first: migrations
 * create vec0 tables.
 */
export function openDatabase(opts: { dataDir: string; vecExtension: string; migrationsDir: string }): DatabaseHandle {
  mkdirSync(opts.dataDir, { recursive: true });
  const path = join(opts.dataDir, DATABASE_FILE);
  const sqlite = new Database(path, { create: true, strict: true });
  // WAL lets the CLI (keys create) write while the server runs; busy_timeout makes them wait, not fail.
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA foreign_keys = ON");
  loadVectorExtension(sqlite, opts.vecExtension);
  const db = drizzle({ client: sqlite, schema });
  migrate(db, { migrationsFolder: opts.migrationsDir });
  return { sqlite, db, path };
}

function loadVectorExtension(sqlite: Database, file: string) {
  try {
    // Explicit entry point: SQLite would otherwise derive it from the file name.
    sqlite.loadExtension(file, "sqlite3_vec_init");
  } catch (error) {
    throw new Error(`cannot load the sqlite-vec extension from ${file}: ${(error as Error).message}`);
  }
}
