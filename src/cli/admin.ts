import { eq } from "drizzle-orm";
import { openDatabase, type DatabaseHandle } from "../db/connection";
import { assetPaths } from "../runtime/assets";
import { apiKeys } from "../tenancy/schema";
import { WorkspaceScope } from "../tenancy/scope";
import { createApiKey, createWorkspace, findWorkspace, listApiKeys, listWorkspaces, revokeApiKey } from "../tenancy/service";
import { UsageError } from "../config";

/** The same database the server uses; WAL and busy_timeout make this safe while it runs. */
export function openAdminDatabase(dataDir: string): DatabaseHandle {
  const assets = assetPaths();
  return openDatabase({ dataDir, vecExtension: assets.vecExtension, migrationsDir: assets.migrationsDir });
}

function workspaceScope(handle: DatabaseHandle, workspaceId: string | undefined, createIfNone: boolean): WorkspaceScope {
  const { db, sqlite } = handle;
  if (workspaceId) {
    if (!findWorkspace(db, workspaceId)) throw new UsageError(`--workspace: no workspace ${workspaceId}`);
    return new WorkspaceScope(db, sqlite, workspaceId);
  }
  const all = listWorkspaces(db);
  if (all.length === 1) return new WorkspaceScope(db, sqlite, all[0]!.id);
  if (all.length === 0 && createIfNone) return new WorkspaceScope(db, sqlite, createWorkspace(db, "default").id);
  if (all.length === 0) throw new UsageError("no workspace yet: run `sieve workspaces create` or `sieve keys create`");
  throw new UsageError(`--workspace: required when there are several workspaces (${all.length}); see \`sieve workspaces list\``);
}

export function keysCreate(handle: DatabaseHandle, opts: { workspace?: string; name: string }) {
  const scope = workspaceScope(handle, opts.workspace, true);
  // The operator's own keys: admin, so the first key can manage the others over the API.
  const { key, record } = createApiKey(scope, opts.name, "admin");
  return { workspace_id: scope.workspaceId, api_key: key, key_id: record.id };
}

export function keysList(handle: DatabaseHandle, opts: { workspace?: string }) {
  const scope = workspaceScope(handle, opts.workspace, false);
  return listApiKeys(scope).map((key) => ({
    key_id: key.id,
    workspace_id: scope.workspaceId,
    name: key.name,
    prefix: key.visiblePrefix,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  }));
}

export function keysRevoke(handle: DatabaseHandle, keyId: string) {
  const row = handle.db.select({ workspaceId: apiKeys.workspaceId }).from(apiKeys).where(eq(apiKeys.id, keyId)).get();
  if (!row) throw new UsageError(`keys revoke: no key ${keyId}`);
  const revoked = revokeApiKey(new WorkspaceScope(handle.db, handle.sqlite, row.workspaceId), keyId)!;
  return { key_id: revoked.id, revoked_at: revoked.revokedAt!.toISOString() };
}

export function workspacesCreate(handle: DatabaseHandle, name: string) {
  const workspace = createWorkspace(handle.db, name);
  return { workspace_id: workspace.id, name: workspace.name };
}

export function workspacesList(handle: DatabaseHandle) {
  return listWorkspaces(handle.db).map((w) => ({ workspace_id: w.id, name: w.name, created_at: w.createdAt.toISOString() }));
}

