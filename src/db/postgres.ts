import { join } from "node:path";
import { SQL } from "bun";
import { drizzle } from "drizzle-orm/bun-sql";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { migrate } from "drizzle-orm/bun-sql/migrator";
import { ChangeFeed } from "./change-feed";
import { DatabaseUnavailable, isConnectionError, type ChangeListener, type ChangeTopic, type Db, type RawParams, type Storage } from "./connection";

/** Any number: the key of the advisory lock that makes instances starting together migrate one at a time. */
const MIGRATION_LOCK = 0x5_1e_7e;

/** Connections per instance: requests wait for one rather than opening more. */
const POOL_SIZE = 10;

/**
 * PostgreSQL through Bun's built-in client (no extra dependency, works in the compiled binary).
 * Migrations (migrations/postgres) run at start under an advisory lock, so several instances
 * may start at once on an empty database.
 */
export async function openPostgres(url: string, migrationsDir: string): Promise<PostgresStorage> {
  const client = new SQL({ url, max: POOL_SIZE, idleTimeout: 30, connectionTimeout: 5 });
  const storage = new PostgresStorage(client, client, redact(url), new ChangeFeed(client));
  try {
    const lock = await client.reserve();
    try {
      await lock.unsafe(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
      await migrate(storage.db as never, { migrationsFolder: join(migrationsDir, "postgres") });
    } finally {
      await lock.unsafe(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`).catch(() => {});
      lock.release();
    }
  } catch (error) {
    await client.close();
    throw new Error(`cannot open the PostgreSQL database ${storage.location}: ${(error as Error).message}`);
  }
  await storage.changes.start();
  return storage;
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://(unparseable URL)";
  }
}

/** `$name` parameters (the SQLite spelling the services write) → PostgreSQL's `$1`, `$2`, … */
export function positional(statement: string, params: RawParams): { text: string; values: unknown[] } {
  const order = new Map<string, number>();
  const text = statement.replace(/\$([A-Za-z_]\w*)/g, (_, name: string) => {
    if (!(name in params)) throw new Error(`SQL parameter $${name} has no value`);
    if (!order.has(name)) order.set(name, order.size + 1);
    return `$${order.get(name)}`;
  });
  const values = [...order.keys()].map((name) => driverValue(params[name]));
  return { text, values };
}

/** Typed arrays (vectors) travel as bytea. */
function driverValue(value: unknown): unknown {
  if (ArrayBuffer.isView(value) && !(value instanceof Buffer)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

export class PostgresStorage implements Storage {
  readonly dialect = "postgres" as const;
  readonly shared = true;
  readonly db: Db;

  constructor(
    /** The pool (the root client): LISTEN and close go through it. */
    readonly pool: SQL,
    /** What statements run on: the pool, or one transaction's connection. */
    private readonly client: SQL,
    readonly location: string,
    readonly changes: ChangeFeed,
    private readonly inTransaction = false,
  ) {
    this.db = drizzle({ client: client as never }) as unknown as Db;
  }

  async all<R>(statement: string, params: RawParams = {}): Promise<R[]> {
    const { text, values } = positional(statement, params);
    return [...(await this.#guard(() => this.client.unsafe(text, values)))] as R[];
  }

  async run(statement: string, params: RawParams = {}): Promise<{ changes: number }> {
    const { text, values } = positional(statement, params);
    const result = await this.#guard(() => this.client.unsafe(text, values));
    return { changes: (result as unknown as { count: number }).count ?? 0 };
  }

  async insertIgnoring(table: SQLiteTable, rows: Record<string, unknown>[]): Promise<void> {
    // 65,535 bound parameters per statement: batches of 500 rows of up to ~130 columns.
    for (let start = 0; start < rows.length; start += 500) {
      await this.#guard(() => this.db.insert(table).values(rows.slice(start, start + 500) as never).onConflictDoNothing());
    }
  }

  async transaction<R>(work: (tx: Storage) => Promise<R>): Promise<R> {
    if (this.inTransaction) return work(this);
    return this.#guard(() => this.client.begin((tx) => work(new PostgresStorage(this.pool, tx as unknown as SQL, this.location, this.changes, true))) as Promise<R>);
  }

  async serialise(key: string): Promise<void> {
    if (!this.inTransaction) throw new Error("serialise() outside a transaction holds nothing");
    await this.all("SELECT pg_advisory_xact_lock(hashtext($key))", { key });
  }

  /** Inside a transaction the notification is sent at commit (and dropped on rollback). */
  async announce(topic: ChangeTopic, workspaceId: string): Promise<void> {
    await this.#guard(() => this.changes.announce(this.client, topic, workspaceId));
  }

  onChange(listener: ChangeListener): void {
    this.changes.onChange(listener);
  }

  async ping(): Promise<void> {
    await this.#guard(() => this.client.unsafe("SELECT 1"));
  }

  async close(): Promise<void> {
    await this.changes.stop();
    await this.pool.close({ timeout: 5 });
  }

  async #guard<T>(query: () => PromiseLike<T>): Promise<T> {
    try {
      return await query();
    } catch (error) {
      throw isConnectionError(error) ? new DatabaseUnavailable(error) : error;
    }
  }
}
