import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { getTableColumns, getTableName } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import type { Db, RawParams, Storage } from "./connection";
import * as schema from "./schema";
import { SignBitIndex } from "./sign-bit-index";

export const DATABASE_FILE = "sieve.db";

/**
 * Opens (creating if needed) the one SQLite file that holds all of Sieve's state, loads
 * sqlite-vec and applies pending migrations. sqlite-vec must be loaded first: migrations
 * create vec0 tables.
 */
export function openSqlite(opts: { dataDir: string; vecExtension: string; migrationsDir: string }): SqliteStorage {
  mkdirSync(opts.dataDir, { recursive: true });
  const path = join(opts.dataDir, DATABASE_FILE);
  const sqlite = new Database(path, { create: true, strict: true });
  try {
    // WAL lets the CLI (keys create) write while the server runs; busy_timeout makes them wait, not fail.
    sqlite.exec("PRAGMA journal_mode = WAL");
  } catch (error) {
    // The first statement is where a file that is not an SQLite database (or is damaged) shows.
    sqlite.close();
    throw new Error(`${path}: ${(error as Error).message} (not a Sieve database, or damaged; move it away to start with an empty one)`);
  }
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA foreign_keys = ON");
  loadVectorExtension(sqlite, opts.vecExtension);
  const db = drizzle({ client: sqlite, schema });
  migrate(db, { migrationsFolder: opts.migrationsDir });
  return new SqliteStorage(sqlite, db, path);
}

function loadVectorExtension(sqlite: Database, file: string) {
  try {
    // Explicit entry point: SQLite would otherwise derive it from the file name.
    sqlite.loadExtension(file, "sqlite3_vec_init");
  } catch (error) {
    throw new Error(`cannot load the sqlite-vec extension from ${file}: ${(error as Error).message}`);
  }
}

/**
 * bun:sqlite answers synchronously; the promises only give it the shape of the Storage seam.
 * One connection, so transactions take turns (a queue), and statements of other requests that
 * run while one is open are part of it (they are never rolled back without an error of their own
 * turn: a transaction rolls back only when its own work throws).
 */
export class SqliteStorage implements Storage {
  readonly dialect = "sqlite" as const;
  readonly shared = false;
  #open: Promise<void> | undefined;

  constructor(
    readonly sqlite: Database,
    readonly db: Db,
    readonly location: string,
    private readonly inTransaction = false,
    readonly signBitIndex = new SignBitIndex(),
  ) {}

  async all<R>(statement: string, params: RawParams = {}): Promise<R[]> {
    return this.sqlite.query(statement).all(params as never) as R[];
  }

  async run(statement: string, params: RawParams = {}): Promise<{ changes: number }> {
    return { changes: this.sqlite.query(statement).run(params as never).changes };
  }

  async insertIgnoring(table: SQLiteTable, rows: Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return;
    const columns = Object.entries(getTableColumns(table));
    const statement = this.sqlite.query(
      `INSERT OR IGNORE INTO "${getTableName(table)}" (${columns.map(([, column]) => `"${column.name}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
    );
    // Values as drizzle would write them: its defaults for what a row leaves out, its driver mapping (JSON, booleans, dates).
    const values = (row: Record<string, unknown>) =>
      columns.map(([key, column]) => {
        const value = row[key] !== undefined ? row[key] : column.defaultFn ? column.defaultFn() : column.default;
        return value === undefined || value === null ? null : column.mapToDriverValue(value);
      });
    // Inside an open transaction (see the evidence writer) the rows join it, as drizzle's INSERT would.
    this.sqlite.transaction((batch: Record<string, unknown>[]) => {
      for (const row of batch) statement.run(...(values(row) as never[]));
    })(rows);
  }

  async transaction<R>(work: (tx: Storage) => Promise<R>): Promise<R> {
    if (this.inTransaction) return work(this);
    // Begins at once when no transaction is open (no tick in between), else after the open ones.
    while (this.#open) await this.#open;
    let release!: () => void;
    this.#open = new Promise<void>((resolve) => (release = resolve));
    try {
      this.sqlite.exec("BEGIN IMMEDIATE");
      try {
        const result = await work(new SqliteStorage(this.sqlite, this.db, this.location, true, this.signBitIndex));
        this.sqlite.exec("COMMIT");
        return result;
      } catch (error) {
        this.sqlite.exec("ROLLBACK");
        throw error;
      }
    } finally {
      this.#open = undefined;
      release();
    }
  }

  async serialise(): Promise<void> {}

  async announce(): Promise<void> {}

  onChange(): void {}

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.sqlite.close();
  }
}
