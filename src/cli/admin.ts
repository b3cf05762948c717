import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { eq } from "drizzle-orm";
import { firstRow, openStorage, type Storage } from "../db/connection";
import { assetPaths } from "../runtime/assets";
import { apiKeys } from "../tenancy/schema";
import { WorkspaceScope } from "../tenancy/scope";
import { createApiKey, createWorkspace, findWorkspace, listApiKeys, listWorkspaces, revokeApiKey } from "../tenancy/service";
import { UsageError } from "../config";

/**
 * The same database the server uses (SQLite: WAL and busy_timeout make this safe while it runs).
 * A SQLite file that does not exist yet is created only with --init: run in the wrong folder,
 * `keys create` would otherwise make a fresh ./data/sieve.db whose key the running server rejects.
 */
export async function openAdminDatabase(dataDir: string, databaseUrl: string, init: boolean): Promise<Storage> {
  const file = resolve(dataDir, (await import("../db/sqlite")).DATABASE_FILE);
  if (!databaseUrl && !init && !existsSync(file)) {
    throw new UsageError(`no database at ${file}: pass the --data-dir (or --database) the server uses, or add --init to create a new database there`);
  }
  const assets = assetPaths();
  return openStorage({ dataDir, databaseUrl: databaseUrl || undefined, vecExtension: assets.vecExtension, migrationsDir: assets.migrationsDir });
}

async function workspaceScope(storage: Storage, workspaceId: string | undefined, createIfNone: boolean): Promise<WorkspaceScope> {
  if (workspaceId) {
    if (!(await findWorkspace(storage, workspaceId))) throw new UsageError(`--workspace: no workspace ${workspaceId}`);
    return new WorkspaceScope(storage, workspaceId);
  }
  const all = await listWorkspaces(storage.db);
  if (all.length === 1) return new WorkspaceScope(storage, all[0]!.id);
  if (all.length === 0 && createIfNone) return new WorkspaceScope(storage, (await createWorkspace(storage.db, "default")).id);
  if (all.length === 0) throw new UsageError("no workspace yet: run `sieve workspaces create` or `sieve keys create`");
  throw new UsageError(`--workspace: required when there are several workspaces (${all.length}); see \`sieve workspaces list\``);
}

export async function keysCreate(storage: Storage, opts: { workspace?: string; name: string }) {
  const scope = await workspaceScope(storage, opts.workspace, true);
  // The operator's own keys: admin, so the first key can manage the others over the API.
  const { key, record } = await createApiKey(scope, opts.name, "admin");
  return { workspace_id: scope.workspaceId, api_key: key, key_id: record.id };
}

export async function keysList(storage: Storage, opts: { workspace?: string }) {
  const scope = await workspaceScope(storage, opts.workspace, false);
  return (await listApiKeys(scope)).map((key) => ({
    key_id: key.id,
    workspace_id: scope.workspaceId,
    name: key.name,
    prefix: key.visiblePrefix,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  }));
}

export async function keysRevoke(storage: Storage, keyId: string) {
  const row = await firstRow(storage.db.select({ workspaceId: apiKeys.workspaceId }).from(apiKeys).where(eq(apiKeys.id, keyId)));
  if (!row) throw new UsageError(`keys revoke: no key ${keyId}`);
  const revoked = (await revokeApiKey(new WorkspaceScope(storage, row.workspaceId), keyId))!;
  return { key_id: revoked.id, revoked_at: revoked.revokedAt!.toISOString() };
}

export async function workspacesCreate(storage: Storage, name: string) {
  const workspace = await createWorkspace(storage.db, name);
  return { workspace_id: workspace.id, name: workspace.name };
}

export async function workspacesList(storage: Storage) {
  return (await listWorkspaces(storage.db)).map((w) => ({ workspace_id: w.id, name: w.name, created_at: w.createdAt.toISOString() }));
}
