import type { Database } from "bun:sqlite";
import { and, count, eq, type InferInsertModel, type InferSelectModel, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/connection";
import { workspaces, type KeyRole } from "./schema";

/** A table of tenant data: it has a workspace_id column. */
export type TenantTable = SQLiteTable & { workspaceId: SQLiteColumn };

/** Who acts within the workspace: an API key (with its role) or a dashboard user. */
export type Actor = { keyId: string | null; userId: string | null; keyRole?: KeyRole };

/**
 * The only door to tenant data. It is created by authentication (never from a request
 * parameter), and every query it builds carries `workspace_id = <this workspace>`, so a
 * service that takes a WorkspaceScope cannot forget the tenant filter. Raw SQL (vec0 KNN
 * queries) goes through `sql`/`all`/`run`, which require the caller's statement to bind
 * `$workspace_id` and fill it in.
 */
export class WorkspaceScope {
  readonly #db: Db;
  readonly #sqlite: Database;

  constructor(
    db: Db,
    sqlite: Database,
    readonly workspaceId: string,
    readonly actor: Actor = { keyId: null, userId: null },
  ) {
    this.#db = db;
    this.#sqlite = sqlite;
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

  count(table: TenantTable, ...conditions: (SQL | undefined)[]): number {
    return this.#db.select({ n: count() }).from(table as SQLiteTable).where(this.where(table, ...conditions)).get()!.n;
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
  workspace(): typeof workspaces.$inferSelect {
    return this.#db.select().from(workspaces).where(eq(workspaces.id, this.workspaceId)).get()!;
  }

  /** Changes the workspace's own settings; an empty change just reads the row. */
  updateWorkspace(set: Partial<Omit<typeof workspaces.$inferInsert, "id" | "createdAt">>): typeof workspaces.$inferSelect {
    const changes = Object.fromEntries(Object.entries(set).filter(([, value]) => value !== undefined));
    if (Object.keys(changes).length === 0) return this.workspace();
    return this.#db.update(workspaces).set(changes).where(eq(workspaces.id, this.workspaceId)).returning().get()!;
  }

  /** Runs `work` in one SQLite transaction; the scope handed in writes through it. */
  transaction<R>(work: (scope: WorkspaceScope) => R): R {
    return this.#db.transaction((tx) => work(new WorkspaceScope(tx as unknown as Db, this.#sqlite, this.workspaceId, this.actor)));
  }

  /** Raw rows for SQL drizzle cannot express; the statement must use `$workspace_id`. */
  all<R>(statement: string, params: Record<string, unknown> = {}): R[] {
    return this.#prepare(statement).all({ ...params, workspace_id: this.workspaceId } as never) as R[];
  }

  run(statement: string, params: Record<string, unknown> = {}) {
    return this.#prepare(statement).run({ ...params, workspace_id: this.workspaceId } as never);
  }

  #prepare(statement: string) {
    if (!statement.includes("$workspace_id")) throw new Error("tenant SQL must filter on $workspace_id");
    return this.#sqlite.query(statement);
  }
}

/** The parts of a drizzle select the services use, typed by the table's row. */
type SelectBuilder<Row> = PromiseLike<Row[]> & {
  all(): Row[];
  get(): Row | undefined;
  orderBy(...columns: (SQLiteColumn | SQL)[]): SelectBuilder<Row>;
  limit(limit: number): SelectBuilder<Row>;
  offset(offset: number): SelectBuilder<Row>;
};
