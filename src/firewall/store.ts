/**
 * Pattern rows and their vectors in SQLite. Built-ins are global rows keyed by slug; custom
 * patterns, switches and their vectors are tenant data and only reached through WorkspaceScope.
 */
import { eq, inArray } from "drizzle-orm";
import type { DatabaseHandle } from "../db/connection";
import type { WorkspaceScope } from "../tenancy/scope";
import { builtinMeta } from "./builtins";
import { BUILTIN_PATTERNS, LIBRARY_VERSION, type LibraryPattern } from "./library";
import type { PatternAction, PatternSide } from "./model";
import type { IndexedPattern, PatternMeta } from "./pattern-index";
import { firewallBuiltinPatterns, firewallCustomPatterns, firewallDisabledBuiltins, firewallDisabledFamilies } from "./schema";

export type BuiltinRow = typeof firewallBuiltinPatterns.$inferSelect;
export type CustomRow = typeof firewallCustomPatterns.$inferSelect;
export type NewCustomPattern = { family: string; side: PatternSide; text: string; action: PatternAction; threshold: number };

const vectorOf = (blob: Uint8Array) => new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));

export class PatternStore {
  constructor(private readonly database: DatabaseHandle) {}

  /**
   * Makes the built-in rows match this release's library: new slugs inserted, changed texts or
   * defaults updated (a new text drops its vector, to be re-embedded), retired slugs removed with
   * their vectors (a workspace's switch for a retired slug stays, inert). Idempotent; returns the rows whose vector is missing or was made by
   * another embedder than `model`.
   */
  syncBuiltins(model: string): BuiltinRow[] {
    const { db, sqlite } = this.database;
    return db.transaction((tx) => {
      const stored = new Map(tx.select().from(firewallBuiltinPatterns).all().map((row) => [row.id, row]));
      for (const pattern of BUILTIN_PATTERNS) {
        const meta = builtinMeta(pattern);
        const values = { family: meta.family, side: meta.side, text: pattern.text, action: meta.action, threshold: meta.threshold, libraryVersion: LIBRARY_VERSION };
        const row = stored.get(pattern.slug);
        if (!row) tx.insert(firewallBuiltinPatterns).values({ id: pattern.slug, ...values }).run();
        else if (changed(row, pattern, meta)) {
          const textChanged = row.text !== pattern.text;
          tx.update(firewallBuiltinPatterns)
            .set({ ...values, ...(textChanged ? { vectorModel: null } : {}) })
            .where(eq(firewallBuiltinPatterns.id, pattern.slug))
            .run();
          if (textChanged) sqlite.query("delete from firewall_builtin_vectors where pattern_id = $id").run({ id: pattern.slug });
        }
      }
      const current = BUILTIN_PATTERNS.map((p) => p.slug);
      const retired = [...stored.keys()].filter((id) => !current.includes(id));
      if (retired.length > 0) {
        tx.delete(firewallBuiltinPatterns).where(inArray(firewallBuiltinPatterns.id, retired)).run();
        for (const id of retired) sqlite.query("delete from firewall_builtin_vectors where pattern_id = $id").run({ id });
      }
      const withVector = new Set(sqlite.query<{ pattern_id: string }, []>("select pattern_id from firewall_builtin_vectors").all().map((r) => r.pattern_id));
      return tx
        .select()
        .from(firewallBuiltinPatterns)
        .all()
        .filter((row) => row.vectorModel !== model || !withVector.has(row.id));
    });
  }

  saveBuiltinVectors(model: string, entries: { id: string; vector: Float32Array }[]): void {
    const { db, sqlite } = this.database;
    db.transaction((tx) => {
      for (const { id, vector } of entries) {
        sqlite.query("delete from firewall_builtin_vectors where pattern_id = $id").run({ id });
        sqlite.query("insert into firewall_builtin_vectors(pattern_id, embedding) values ($id, $embedding)").run({ id, embedding: vector });
        tx.update(firewallBuiltinPatterns).set({ vectorModel: model }).where(eq(firewallBuiltinPatterns.id, id)).run();
      }
    });
  }

  /** Every built-in with its vector (rows without one are left out until embedded). */
  loadBuiltins(): IndexedPattern[] {
    const vectors = new Map(
      this.database.sqlite
        .query<{ pattern_id: string; embedding: Uint8Array }, []>("select pattern_id, embedding from firewall_builtin_vectors")
        .all()
        .map((r) => [r.pattern_id, vectorOf(r.embedding)]),
    );
    return this.builtinRows().flatMap((row) => {
      const vector = vectors.get(row.id);
      return vector ? [{ meta: builtinRowMeta(row), vector }] : [];
    });
  }

  builtinRows(): BuiltinRow[] {
    return this.database.db.select().from(firewallBuiltinPatterns).orderBy(firewallBuiltinPatterns.id).all();
  }

  findBuiltin(id: string): BuiltinRow | undefined {
    return this.database.db.select().from(firewallBuiltinPatterns).where(eq(firewallBuiltinPatterns.id, id)).get();
  }

  // — tenant data —

  disabledBuiltins(scope: WorkspaceScope): Set<string> {
    return new Set(scope.select(firewallDisabledBuiltins).all().map((r) => r.patternId));
  }

  disabledFamilies(scope: WorkspaceScope): Set<string> {
    return new Set(scope.select(firewallDisabledFamilies).all().map((r) => r.family));
  }

  setBuiltinEnabled(scope: WorkspaceScope, patternId: string, enabled: boolean): void {
    if (enabled) scope.delete(firewallDisabledBuiltins, eq(firewallDisabledBuiltins.patternId, patternId)).run();
    else scope.insert(firewallDisabledBuiltins, { patternId }).onConflictDoNothing().run();
  }

  setFamilyEnabled(scope: WorkspaceScope, family: string, enabled: boolean): void {
    if (enabled) scope.delete(firewallDisabledFamilies, eq(firewallDisabledFamilies.family, family)).run();
    else scope.insert(firewallDisabledFamilies, { family }).onConflictDoNothing().run();
  }

  customRows(scope: WorkspaceScope): CustomRow[] {
    return scope.select(firewallCustomPatterns).orderBy(firewallCustomPatterns.createdAt, firewallCustomPatterns.id).all();
  }

  findCustom(scope: WorkspaceScope, id: string): CustomRow | undefined {
    return scope.select(firewallCustomPatterns, eq(firewallCustomPatterns.id, id)).get();
  }

  /** Row and vector in one transaction: a pattern is never stored without its embedding. */
  insertCustom(scope: WorkspaceScope, id: string, pattern: NewCustomPattern, model: string, vector: Float32Array): CustomRow {
    return scope.transaction((tx) => {
      const row: Omit<typeof firewallCustomPatterns.$inferInsert, "workspaceId"> = { id, ...pattern, vectorModel: model };
      tx.insert(firewallCustomPatterns, row).run();
      tx.run("insert into firewall_custom_vectors(pattern_id, workspace_id, embedding) values ($id, $workspace_id, $embedding)", { id, embedding: vector });
      return this.findCustom(tx, id)!;
    });
  }

  /** Updates a custom row; a new text comes with its new vector. */
  updateCustom(scope: WorkspaceScope, id: string, set: Partial<NewCustomPattern> & { enabled?: boolean }, vector?: { model: string; vector: Float32Array }): CustomRow | undefined {
    return scope.transaction((tx) => {
      if (!this.findCustom(tx, id)) return undefined;
      tx.update(firewallCustomPatterns, { ...set, ...(vector ? { vectorModel: vector.model } : {}), updatedAt: new Date() }, eq(firewallCustomPatterns.id, id)).run();
      if (vector) this.replaceCustomVector(tx, id, vector.vector);
      return this.findCustom(tx, id);
    });
  }

  deleteCustom(scope: WorkspaceScope, id: string): boolean {
    return scope.transaction((tx) => {
      if (!this.findCustom(tx, id)) return false;
      tx.delete(firewallCustomPatterns, eq(firewallCustomPatterns.id, id)).run();
      tx.run("delete from firewall_custom_vectors where pattern_id = $id and workspace_id = $workspace_id", { id });
      return true;
    });
  }

  /** Enabled custom patterns with vectors made by `model`, and the ids of those that need (re-)embedding. */
  loadCustom(scope: WorkspaceScope, model: string): { patterns: IndexedPattern[]; stale: CustomRow[] } {
    const rows = scope.select(firewallCustomPatterns, eq(firewallCustomPatterns.enabled, true)).all();
    const vectors = new Map(
      scope
        .all<{ pattern_id: string; embedding: Uint8Array }>("select pattern_id, embedding from firewall_custom_vectors where workspace_id = $workspace_id")
        .map((r) => [r.pattern_id, vectorOf(r.embedding)]),
    );
    const patterns: IndexedPattern[] = [];
    const stale: CustomRow[] = [];
    for (const row of rows) {
      const vector = vectors.get(row.id);
      if (vector && row.vectorModel === model) patterns.push({ meta: customRowMeta(row), vector });
      else stale.push(row);
    }
    return { patterns, stale };
  }

  saveCustomVectors(scope: WorkspaceScope, model: string, entries: { id: string; vector: Float32Array }[]): void {
    scope.transaction((tx) => {
      for (const { id, vector } of entries) {
        this.replaceCustomVector(tx, id, vector);
        tx.update(firewallCustomPatterns, { vectorModel: model }, eq(firewallCustomPatterns.id, id)).run();
      }
    });
  }

  private replaceCustomVector(scope: WorkspaceScope, id: string, vector: Float32Array) {
    scope.run("delete from firewall_custom_vectors where pattern_id = $id and workspace_id = $workspace_id", { id });
    scope.run("insert into firewall_custom_vectors(pattern_id, workspace_id, embedding) values ($id, $workspace_id, $embedding)", { id, embedding: vector });
  }
}

function changed(row: BuiltinRow, pattern: LibraryPattern, meta: PatternMeta): boolean {
  return row.text !== pattern.text || row.family !== meta.family || row.side !== meta.side || row.action !== meta.action || row.threshold !== meta.threshold;
}

export function builtinRowMeta(row: BuiltinRow): PatternMeta {
  return { id: row.id, family: row.family, side: row.side, action: row.action, threshold: row.threshold, builtIn: true };
}

export function customRowMeta(row: CustomRow): PatternMeta {
  return { id: row.id, family: row.family, side: row.side, action: row.action, threshold: row.threshold, builtIn: false };
}
