import { and, count, eq, type InferInsertModel, type InferSelectModel, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { firstRow, type ChangeTopic, type Db, type Dialect, type RawParams, type Storage } from "../db/connection";
import type { WorkspaceSignBits } from "../db/sign-bit-index";
import { workspaces, type KeyRole } from "./schema";
import type { Limits } from "../usage/model";

/** A table of tenant data: it has a workspace_id column. */
export type TenantTable = SQLiteTable & { workspaceId: SQLiteColumn };

/** Who acts within the workspace: an API key (with its role and its own limits) or a dashboard user. */
export type Actor = { keyId: string | null; userId: string | null; keyRole?: KeyRole; keyLimits?: Limits | null };

/**
 * The only door to tenant data. It is created by authentication (never from a request
 * parameter), and every query it builds carries `workspace_id = <this workspace>`, so a
 * service that takes a WorkspaceScope cannot forget the tenant filter. Raw SQL (vector
 * queries) goes through `all`/`run`, which require the caller's statement to bind
 * `$workspace_id` and fill it in. Every query is async: the storage may be SQLite or PostgreSQL.
 */
export class WorkspaceScope {
  readonly #storage: Storage;
  readonly #db: Db;
  #signBits: WorkspaceSignBits | undefined;

  constructor(
    storage: Storage,
    readonly workspaceId: string,
    readonly actor: Actor = { keyId: null, userId: null },
  ) {
    this.#storage = storage;
    this.#db = storage.db;
  }

  /** Which SQL the storage speaks, for the few statements that differ (vector search). */
  get dialect(): Dialect {
    return this.#storage.dialect;
  }

  /** This workspace's partitions of the storage's in-process sign-bit index (SQLite); undefined where the database searches (PostgreSQL). */
  get signBits(): WorkspaceSignBits | undefined {
    // Made once per scope: a store and a lookup each ask several times.
    return (this.#signBits ??= this.#storage.signBitIndex?.forWorkspace(this.workspaceId));
  }

  /** `workspace_id = this workspace AND …conditions`. */
  where(table: TenantTable, ...conditions: (SQL | undefined)[]): SQL {
    return and(eq(table.workspaceId, this.workspaceId), ...conditions)!;
  }

  select<T extends TenantTable>(table: T, ...conditions: (SQL | undefined)[]) {
    return this.#db
      .select()
      .from(table as SQLiteTable)
      .where(this.where(table, ...conditions))
      .$dynamic() as unknown as SelectBuilder<InferSelectModel<T>>;
  }

  async count(table: TenantTable, ...conditions: (SQL | undefined)[]): Promise<number> {
    const [row] = await this.#db.select({ n: count() }).from(table as SQLiteTable).where(this.where(table, ...conditions));
    return Number(row!.n); // PostgreSQL hands count back as a string
  }

  /** The first row of `select(table, …conditions)`. */
  first<T extends TenantTable>(table: T, ...conditions: (SQL | undefined)[]): Promise<InferSelectModel<T> | undefined> {
    return firstRow(this.select(table, ...conditions).limit(1));
  }

  insert<T extends TenantTable>(table: T, values: Omit<InferInsertModel<T>, "workspaceId"> | Omit<InferInsertModel<T>, "workspaceId">[]) {
    const rows = (Array.isArray(values) ? values : [values]).map((row) => ({ ...row, workspaceId: this.workspaceId }));
    return this.#db.insert(table).values(rows as InferInsertModel<T>[]);
  }

  update<T extends TenantTable>(table: T, set: Partial<InferInsertModel<T>>, ...conditions: (SQL | undefined)[]) {
    if ("workspaceId" in set) throw new Error("a row cannot move to another workspace");
    return this.#db
      .update(table)
      .set(set as never)
      .where(this.where(table, ...conditions));
  }

  delete<T extends TenantTable>(table: T, ...conditions: (SQL | undefined)[]) {
    return this.#db.delete(table).where(this.where(table, ...conditions));
  }

  /** The workspace's own row (its settings). */
  async workspace(): Promise<typeof workspaces.$inferSelect> {
    return (await firstRow(this.#db.select().from(workspaces).where(eq(workspaces.id, this.workspaceId))))!;
  }

  /** Changes the workspace's own settings; an empty change just reads the row. */
  async updateWorkspace(set: Partial<Omit<typeof workspaces.$inferInsert, "id" | "createdAt">>): Promise<typeof workspaces.$inferSelect> {
    const changes = Object.fromEntries(Object.entries(set).filter(([, value]) => value !== undefined));
    if (Object.keys(changes).length === 0) return this.workspace();
    const updated = (await firstRow(this.#db.update(workspaces).set(changes).where(eq(workspaces.id, this.workspaceId)).returning()))!;
    await this.announce("workspace");
    return updated;
  }

  /** Tells the other instances on this database to drop their copies of this workspace's `topic`. */
  announce(topic: ChangeTopic): Promise<void> {
    return this.#storage.announce(topic, this.workspaceId);
  }

  /** Runs `work` in one transaction; the scope handed in writes through it. */
  transaction<R>(work: (scope: WorkspaceScope) => Promise<R>): Promise<R> {
    return this.#storage.transaction((tx) => work(new WorkspaceScope(tx, this.workspaceId, this.actor)));
  }

  /** See Storage.serialise; the key is taken within this workspace. */
  serialise(key: string): Promise<void> {
    return this.#storage.serialise(`${this.workspaceId}:${key}`);
  }

  /** Raw rows for SQL drizzle cannot express; the statement must use `$workspace_id`. */
  all<R>(statement: string, params: RawParams = {}): Promise<R[]> {
    return this.#storage.all<R>(checked(statement), { ...params, workspace_id: this.workspaceId });
  }

  run(statement: string, params: RawParams = {}): Promise<{ changes: number }> {
    return this.#storage.run(checked(statement), { ...params, workspace_id: this.workspaceId });
  }
}

function checked(statement: string): string {
  if (!statement.includes("$workspace_id")) throw new Error("tenant SQL must filter on $workspace_id");
  return statement;
}

/** The parts of a drizzle select the services use, typed by the table's row. */
type SelectBuilder<Row> = Promise<Row[]> & {
  orderBy(...columns: (SQLiteColumn | SQL)[]): SelectBuilder<Row>;
  limit(limit: number): SelectBuilder<Row>;
  offset(offset: number): SelectBuilder<Row>;
};
