/**
 * Pattern rows and their vectors (SQLite: sqlite-vec tables; PostgreSQL: bytea columns, same
 * statements). Built-ins are global rows keyed by slug; custom
 * patterns, switches and their vectors are tenant data and only reached through WorkspaceScope.
 */
import { eq, inArray } from "drizzle-orm";
import { firstRow, type Storage } from "../db/connection";
import type { WorkspaceScope } from "../tenancy/scope";
import { builtinMeta } from "./builtins";
import { BUILTIN_PATTERNS, LIBRARY_VERSION, type LibraryPattern } from "./library";
import type { PatternAction, PatternSide } from "./model";
import type { IndexedPattern, PatternMeta } from "./pattern-index";
import { firewallBuiltinOverrides, firewallBuiltinPatterns, firewallCustomPatterns, firewallDisabledBuiltins, firewallDisabledFamilies } from "./schema";

export type BuiltinRow = typeof firewallBuiltinPatterns.$inferSelect;
export type CustomRow = typeof firewallCustomPatterns.$inferSelect;
export type NewCustomPattern = { family: string; side: PatternSide; text: string; action: PatternAction; threshold: number };
/** A workspace's own action and threshold for a built-in pattern; an absent field keeps the library's default. */
export type BuiltinOverride = { action?: PatternAction; threshold?: number };

const vectorOf = (blob: Uint8Array) => new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));

export class PatternStore {
  constructor(private readonly database: Storage) {}

  /**
   * Makes the built-in rows match this release's library: new slugs inserted, changed texts or
   * defaults updated (a new text drops its vector, to be re-embedded), retired slugs removed with
   * their vectors (a workspace's switch for a retired slug stays, inert). Idempotent; returns the rows whose vector is missing or was made by
   * another embedder than the one of their side (`modelOf`).
   */
  syncBuiltins(modelOf: (side: PatternSide) => string): Promise<BuiltinRow[]> {
    return this.database.transaction(async (storage) => {
      // Fleet mode: instances starting together sync one after the other; the second finds the rows.
      await storage.serialise("firewall-builtins");
      const tx = storage.db;
      const stored = new Map((await tx.select().from(firewallBuiltinPatterns)).map((row) => [row.id, row]));
      for (const pattern of BUILTIN_PATTERNS) {
        const meta = builtinMeta(pattern);
        const values = { family: meta.family, side: meta.side, text: pattern.text, action: meta.action, threshold: meta.threshold, libraryVersion: LIBRARY_VERSION };
        const row = stored.get(pattern.slug);
        if (!row) await tx.insert(firewallBuiltinPatterns).values({ id: pattern.slug, ...values }).onConflictDoNothing();
        else if (changed(row, pattern, meta)) {
          const textChanged = row.text !== pattern.text;
          await tx
            .update(firewallBuiltinPatterns)
            .set({ ...values, ...(textChanged ? { vectorModel: null } : {}) })
            .where(eq(firewallBuiltinPatterns.id, pattern.slug));
          if (textChanged) await storage.run("delete from firewall_builtin_vectors where pattern_id = $id", { id: pattern.slug });
        }
      }
      const current = BUILTIN_PATTERNS.map((p) => p.slug);
      const retired = [...stored.keys()].filter((id) => !current.includes(id));
      if (retired.length > 0) {
        await tx.delete(firewallBuiltinPatterns).where(inArray(firewallBuiltinPatterns.id, retired));
        for (const id of retired) await storage.run("delete from firewall_builtin_vectors where pattern_id = $id", { id });
      }
      const withVector = new Set((await storage.all<{ pattern_id: string }>("select pattern_id from firewall_builtin_vectors")).map((r) => r.pattern_id));
      return (await tx.select().from(firewallBuiltinPatterns)).filter((row) => row.vectorModel !== modelOf(row.side) || !withVector.has(row.id));
    });
  }

  async saveBuiltinVectors(model: string, entries: { id: string; vector: Float32Array }[]): Promise<void> {
    await this.database.transaction(async (storage) => {
      await storage.serialise("firewall-builtins");
      for (const { id, vector } of entries) {
        await storage.run("delete from firewall_builtin_vectors where pattern_id = $id", { id });
        await storage.run("insert into firewall_builtin_vectors(pattern_id, embedding) values ($id, $embedding)", { id, embedding: vector });
        await storage.db.update(firewallBuiltinPatterns).set({ vectorModel: model }).where(eq(firewallBuiltinPatterns.id, id));
      }
    });
  }

  /** Every built-in with its vector (rows without one are left out until embedded). */
  async loadBuiltins(): Promise<IndexedPattern[]> {
    const vectors = new Map(
      (await this.database.all<{ pattern_id: string; embedding: Uint8Array }>("select pattern_id, embedding from firewall_builtin_vectors")).map((r) => [
        r.pattern_id,
        vectorOf(r.embedding),
      ]),
    );
    return (await this.builtinRows()).flatMap((row) => {
      const vector = vectors.get(row.id);
      return vector ? [{ meta: builtinRowMeta(row), vector }] : [];
    });
  }

  builtinRows(): Promise<BuiltinRow[]> {
    return this.database.db.select().from(firewallBuiltinPatterns).orderBy(firewallBuiltinPatterns.id);
  }

  findBuiltin(id: string): Promise<BuiltinRow | undefined> {
    return firstRow(this.database.db.select().from(firewallBuiltinPatterns).where(eq(firewallBuiltinPatterns.id, id)));
  }

  // — tenant data —

  /** The workspace's switches and its own actions and thresholds for the built-ins. */
  async workspaceBuiltins(scope: WorkspaceScope): Promise<WorkspaceBuiltins> {
    const overrides = (await scope.select(firewallBuiltinOverrides)).map((r): [string, BuiltinOverride] => [
      r.patternId,
      { ...(r.action !== null && { action: r.action }), ...(r.threshold !== null && { threshold: r.threshold }) },
    ]);
    return new WorkspaceBuiltins(new Set((await scope.select(firewallDisabledBuiltins)).map((r) => r.patternId)), await this.disabledFamilies(scope), new Map(overrides));
  }

  async disabledFamilies(scope: WorkspaceScope): Promise<Set<string>> {
    return new Set((await scope.select(firewallDisabledFamilies)).map((r) => r.family));
  }

  /**
   * A workspace's switch, action and threshold for a built-in, in one transaction. An action or
   * threshold equal to the library's default is not kept (the field then follows the default);
   * the override row goes when neither differs.
   */
  updateBuiltin(scope: WorkspaceScope, row: BuiltinRow, changes: BuiltinOverride & { enabled?: boolean }): Promise<void> {
    return scope.transaction(async (tx) => {
      if (changes.enabled === true) await tx.delete(firewallDisabledBuiltins, eq(firewallDisabledBuiltins.patternId, row.id));
      if (changes.enabled === false) await tx.insert(firewallDisabledBuiltins, { patternId: row.id }).onConflictDoNothing();
      if (changes.action === undefined && changes.threshold === undefined) return;
      await tx.serialise(`firewall-builtin-override:${row.id}`); // fleet mode: two PATCHes of one pattern merge one after the other
      const where = eq(firewallBuiltinOverrides.patternId, row.id);
      const stored = await tx.first(firewallBuiltinOverrides, where);
      const wanted = { action: changes.action ?? stored?.action ?? null, threshold: changes.threshold ?? stored?.threshold ?? null };
      const kept = { action: wanted.action === row.action ? null : wanted.action, threshold: wanted.threshold === row.threshold ? null : wanted.threshold };
      if (kept.action === null && kept.threshold === null) await tx.delete(firewallBuiltinOverrides, where);
      else if (stored) await tx.update(firewallBuiltinOverrides, { ...kept, updatedAt: new Date() }, where);
      else {
        const values: Omit<typeof firewallBuiltinOverrides.$inferInsert, "workspaceId"> = { patternId: row.id, ...kept, updatedAt: new Date() };
        await tx.insert(firewallBuiltinOverrides, values);
      }
    });
  }

  async setFamilyEnabled(scope: WorkspaceScope, family: string, enabled: boolean): Promise<void> {
    if (enabled) await scope.delete(firewallDisabledFamilies, eq(firewallDisabledFamilies.family, family));
    else await scope.insert(firewallDisabledFamilies, { family }).onConflictDoNothing();
  }

  async customRows(scope: WorkspaceScope): Promise<CustomRow[]> {
    return scope.select(firewallCustomPatterns).orderBy(firewallCustomPatterns.createdAt, firewallCustomPatterns.id);
  }

  findCustom(scope: WorkspaceScope, id: string): Promise<CustomRow | undefined> {
    return scope.first(firewallCustomPatterns, eq(firewallCustomPatterns.id, id));
  }

  /** Row and vector in one transaction: a pattern is never stored without its embedding. */
  insertCustom(scope: WorkspaceScope, id: string, pattern: NewCustomPattern, model: string, vector: Float32Array): Promise<CustomRow> {
    return scope.transaction(async (tx) => {
      const row: Omit<typeof firewallCustomPatterns.$inferInsert, "workspaceId"> = { id, ...pattern, vectorModel: model };
      await tx.insert(firewallCustomPatterns, row);
      await tx.run("insert into firewall_custom_vectors(pattern_id, workspace_id, embedding) values ($id, $workspace_id, $embedding)", { id, embedding: vector });
      return (await this.findCustom(tx, id))!;
    });
  }

  /** Updates a custom row; a new text comes with its new vector. */
  updateCustom(scope: WorkspaceScope, id: string, set: Partial<NewCustomPattern> & { enabled?: boolean }, vector?: { model: string; vector: Float32Array }): Promise<CustomRow | undefined> {
    return scope.transaction(async (tx) => {
      if (!(await this.findCustom(tx, id))) return undefined;
      await tx.update(firewallCustomPatterns, { ...set, ...(vector ? { vectorModel: vector.model } : {}), updatedAt: new Date() }, eq(firewallCustomPatterns.id, id));
      if (vector) await this.replaceCustomVector(tx, id, vector.vector);
      return this.findCustom(tx, id);
    });
  }

  deleteCustom(scope: WorkspaceScope, id: string): Promise<boolean> {
    return scope.transaction(async (tx) => {
      if (!(await this.findCustom(tx, id))) return false;
      await tx.run("delete from firewall_custom_vectors where pattern_id = $id and workspace_id = $workspace_id", { id });
      await tx.delete(firewallCustomPatterns, eq(firewallCustomPatterns.id, id));
      return true;
    });
  }

  /** Enabled custom patterns with vectors made by `model`, and the ids of those that need (re-)embedding. */
  async loadCustom(scope: WorkspaceScope, model: string): Promise<{ patterns: IndexedPattern[]; stale: CustomRow[] }> {
    const rows = await scope.select(firewallCustomPatterns, eq(firewallCustomPatterns.enabled, true));
    const vectors = new Map(
      (await scope.all<{ pattern_id: string; embedding: Uint8Array }>("select pattern_id, embedding from firewall_custom_vectors where workspace_id = $workspace_id")).map((r) => [
        r.pattern_id,
        vectorOf(r.embedding),
      ]),
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

  async saveCustomVectors(scope: WorkspaceScope, model: string, entries: { id: string; vector: Float32Array }[]): Promise<void> {
    await scope.transaction(async (tx) => {
      for (const { id, vector } of entries) {
        await this.replaceCustomVector(tx, id, vector);
        await tx.update(firewallCustomPatterns, { vectorModel: model }, eq(firewallCustomPatterns.id, id));
      }
    });
  }

  private async replaceCustomVector(scope: WorkspaceScope, id: string, vector: Float32Array) {
    await scope.run("delete from firewall_custom_vectors where pattern_id = $id and workspace_id = $workspace_id", { id });
    await scope.run("insert into firewall_custom_vectors(pattern_id, workspace_id, embedding) values ($id, $workspace_id, $embedding)", { id, embedding: vector });
  }
}

/** How one workspace sees the built-in patterns: which are on, and its own action and threshold where it set them. */
export class WorkspaceBuiltins {
  constructor(
    private readonly disabled: Set<string>,
    private readonly disabledFamilies: Set<string>,
    private readonly overrides: Map<string, BuiltinOverride>,
  ) {}

  enabled(pattern: { id: string; family: string }): boolean {
    return !this.disabled.has(pattern.id) && !this.disabledFamilies.has(pattern.family);
  }

  /** The pattern as the workspace scores it, or undefined when it is off. */
  meta(meta: PatternMeta): PatternMeta | undefined {
    if (!this.enabled(meta)) return undefined;
    const override = this.overrides.get(meta.id);
    return override ? { ...meta, ...override } : meta;
  }

  override(id: string): BuiltinOverride | undefined {
    return this.overrides.get(id);
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
