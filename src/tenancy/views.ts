import { policyView } from "../data-protection/service";
import type { ApiKeyRecord, Workspace } from "./service";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export const apiKeyView = (key: ApiKeyRecord) => ({
  id: key.id,
  name: key.name,
  prefix: key.visiblePrefix,
  role: key.role,
  created_at: key.createdAt.toISOString(),
  last_used_at: iso(key.lastUsedAt),
  revoked_at: iso(key.revokedAt),
  limits: key.limits,
});

export const workspaceView = (workspace: Workspace) => ({
  id: workspace.id,
  name: workspace.name,
  created_at: workspace.createdAt.toISOString(),
});

export const workspaceSettingsView = (workspace: Workspace, defaults: { upstreamUrl: string; anthropicUpstreamUrl: string }) => ({
  ...workspaceView(workspace),
  log_bodies: workspace.logBodies,
  firewall_scan_system: workspace.firewallScanSystem,
  upstream_url: workspace.upstreamUrl,
  effective_upstream_url: workspace.upstreamUrl ?? defaults.upstreamUrl,
  anthropic_upstream_url: workspace.anthropicUpstreamUrl,
  effective_anthropic_upstream_url: workspace.anthropicUpstreamUrl ?? defaults.anthropicUpstreamUrl,
  data_protection: policyView(workspace.dataProtection),
  limits: workspace.limits,
});
