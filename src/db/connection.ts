import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type * as schema from "./schema";
import type { SignBitIndex } from "./sign-bit-index";

/**
 * Drizzle's query builder over the tables of src/db/schema.ts. The tables are defined once (with
 * sqlite-core) and both adapters build their queries from them; on PostgreSQL the same builder
 * calls run through drizzle's pg session. So services only ever `await` a query (never the
 * SQLite-only `.get()`, `.all()`, `.run()`), which both dialects support.
 */
export type Db = BunSQLiteDatabase<typeof schema>;

export type Dialect = "sqlite" | "postgres";

/**
 * What an instance holds a copy of in memory; a change to it is announced to every instance.
 * (Cache entries have no in-memory copy: a purge on one instance is seen by the next lookup anywhere.)
 */
export type ChangeTopic = "keys" | "workspace" | "patterns";

/** A change seen by this instance: of one workspace, or (null: notifications may have been missed) of anything. */
export type ChangeListener = (topic: ChangeTopic | null, workspaceId: string | null) => void;

/** Named parameters of raw SQL, written `$name` in the statement (both adapters bind them). */
export type RawParams = Record<string, unknown>;

/**
 * The database of one running Sieve, whichever engine holds it: the seam between the services
 * and SQLite (src/db/sqlite.ts) or PostgreSQL (src/db/postgres.ts). Everything is async, so a
 * network database fits the same code.
 */
export interface Storage {
  readonly dialect: Dialect;
  readonly db: Db;
  /** Where the data lives, for logs: a file path or a URL without its password. */
  readonly location: string;
  /** Raw rows for SQL drizzle cannot express. */
  all<R>(statement: string, params?: RawParams): Promise<R[]>;
  /** A raw statement; `changes` counts the rows it touched. */
  run(statement: string, params?: RawParams): Promise<{ changes: number }>;
  /**
   * Many rows of one table at once (a background batch such as the evidence log's); a row whose
   * primary key exists already is skipped. SQLite runs one compiled statement per row in a
   * transaction: drizzle's multi-row INSERT was rebuilt for every batch at ~28 columns a row.
   */
  insertIgnoring(table: SQLiteTable, rows: Record<string, unknown>[]): Promise<void>;
  /** Runs `work` in one transaction; the storage handed in writes through it. Nested calls join the outer one. */
  transaction<R>(work: (tx: Storage) => Promise<R>): Promise<R>;
  /**
   * Inside a transaction: waits until no other transaction (of any instance) holds `key`, and
   * holds it until this one ends. SQLite's transactions already take turns.
   */
  serialise(key: string): Promise<void>;
  /**
   * Tells every instance sharing this database that a workspace's `topic` changed, so they drop
   * their in-memory copies. A no-op on SQLite: one process owns the file.
   */
  announce(topic: ChangeTopic, workspaceId: string): Promise<void>;
  /** Changes announced by any instance (this one included). */
  onChange(listener: ChangeListener): void;
  /**
   * SQLite: the in-process Hamming-distance index the semantic cache searches (one process owns
   * the file). Absent on PostgreSQL, which several instances share: it searches in SQL.
   */
  readonly signBitIndex?: SignBitIndex;
  /** Whether other instances may share this database (PostgreSQL): in-memory copies then need the announcements. */
  readonly shared: boolean;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The first row of a query, or undefined. */
export async function firstRow<T>(query: PromiseLike<T[]>): Promise<T | undefined> {
  return (await query)[0];
}

/** The database could not be reached (connection refused, lost, timed out): a 503, not a 500. */
export class DatabaseUnavailable extends Error {
  constructor(cause: unknown) {
    super(`database unavailable: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/**
 * Whether an error (or one it wraps: drizzle wraps the driver's) says the database could not be
 * reached — refused, reset, closed, timed out, shutting down — rather than that a statement failed.
 */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof DatabaseUnavailable) return true;
  const code = String((error as { code?: unknown })?.code ?? "");
  const cause = (error as { cause?: unknown })?.cause;
  // Drivers' codes are upper case (ECONNREFUSED, ERR_POSTGRES_CONNECTION_CLOSED); Sieve's own are lower case (signup_closed).
  if (/CONNECTION|TIMEOUT|ECONN|EPIPE|SOCKET|CLOSED/.test(code)) return true;
  // Server-side: admin shutdown, crash shutdown, cannot connect now (57P01..57P03), connection exceptions (08xxx).
  const state = String((error as { errno?: unknown })?.errno ?? "");
  if (/^(57P0[1-3]|08)/.test(state)) return true;
  return cause !== undefined && cause !== error && isConnectionError(cause);
}

export type StorageOptions = { dataDir: string; vecExtension: string; migrationsDir: string; databaseUrl?: string };

/** --database postgres://… opens PostgreSQL; otherwise the SQLite file in the data dir. */
export async function openStorage(opts: StorageOptions): Promise<Storage> {
  if (opts.databaseUrl) {
    const { openPostgres } = await import("./postgres");
    return openPostgres(opts.databaseUrl, opts.migrationsDir);
  }
  const { openSqlite } = await import("./sqlite");
  return openSqlite(opts);
}
