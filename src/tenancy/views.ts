import type { ApiKeyRecord, Workspace } from "./service";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export const apiKeyView = (key: ApiKeyRecord) => ({
  id: key.id,
  name: key.name,
  prefix: key.visiblePrefix,
  created_at: key.createdAt.toISOString(),
  last_used_at: iso(key.lastUsedAt),
  revoked_at: iso(key.revokedAt),
});

export const workspaceView = (workspace: Workspace) => ({
  id: workspace.id,
  name: workspace.name,
  created_at: workspace.createdAt.toISOString(),
});
