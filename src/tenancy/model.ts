import { z } from "zod";
import { policyInput, policyView } from "../data-protection/model";
import { KEY_ROLES } from "./schema";
import { limitsSchema } from "../usage/model";

export const credentialsBody = z.object({
  email: z.string().trim().email().max(254),
  password: z.string().min(8, "must be at least 8 characters").max(256),
});

export const signUpBody = credentialsBody
  .extend({ workspace_name: z.string().trim().min(1).max(100).optional() })
  .meta({ examples: [{ email: "ada@example.com", password: "a long passphrase", workspace_name: "Acme" }] });

export const createKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(100).default("default"),
  /** admin keys may manage keys too; only a session or an admin key can create one. */
  role: z.enum(KEY_ROLES).default("service"),
  /** The key's own limits, on top of the workspace's (docs/usage-and-budgets.md). */
  limits: limitsSchema.optional(),
}).meta({ examples: [{ name: "billing-service", role: "service", limits: { requests_per_minute: 600 } }] });

/** PATCH /api/keys/{id}: rename, or change the key's limits (null removes one; omitted keeps it). */
export const updateKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(100).optional(),
  limits: limitsSchema.optional(),
}).meta({ examples: [{ limits: { spend_per_day_usd: 20, requests_per_minute: null } }] });

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

/** Workspace settings that are not a feature's own (cache settings live under /v1/cache/settings). */
export const workspaceSettingsPatch = z.strictObject({
  name: z.string().trim().min(1).max(100).optional(),
  log_bodies: z.boolean().optional(),
  firewall_scan_system: z.boolean().optional(),
  /** null: use the server's --upstream-url. */
  upstream_url: httpUrl.nullable().optional(),
  /** null: use the server's --anthropic-upstream-url. */
  anthropic_upstream_url: httpUrl.nullable().optional(),
  /** Actions by entity type and custom patterns (docs/data-protection.md); given actions are merged, a given custom list replaces the stored one. */
  data_protection: policyInput.optional(),
  /** Requests and tokens per minute, spend per day and month (docs/usage-and-budgets.md); null in a field removes that limit. */
  limits: limitsSchema.optional(),
}).meta({ examples: [{ name: "Acme production", data_protection: { actions: { email: "redact" } } }] });

export const keyIdParams = z.object({ id: z.string().min(1).max(64) });

export const apiKeyView = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  role: z.enum(KEY_ROLES),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  limits: limitsSchema.nullable(),
});

export const workspaceView = z.object({ id: z.string(), name: z.string(), created_at: z.string() });

// ---- Responses (documented in the OpenAPI document; views.ts and index.ts write them) ----

export const apiKeyList = z.object({ keys: z.array(apiKeyView) });

export const createdApiKey = apiKeyView.extend({
  api_key: z.string().describe("The full key: shown in this response only"),
  workspace_id: z.string(),
});

/** A dashboard session: its user, workspace and the CSRF token its changes send. */
export const sessionView = z.object({
  user: z.object({ id: z.string(), email: z.string() }),
  workspace: workspaceView,
  csrf_token: z.string(),
  expires_at: z.string(),
});

export const signUpView = sessionView.extend({
  claimed_existing_workspace: z.boolean().describe("True when this first account joined the server's only workspace (made with `sieve keys create`)"),
});

export const loggedOut = z.object({ status: z.literal("logged_out") });

export const workspaceSettingsView = workspaceView.extend({
  log_bodies: z.boolean(),
  firewall_scan_system: z.boolean(),
  upstream_url: z.string().nullable().describe("null: the server's --upstream-url (effective_upstream_url)"),
  effective_upstream_url: z.string(),
  anthropic_upstream_url: z.string().nullable(),
  effective_anthropic_upstream_url: z.string(),
  data_protection: policyView,
  limits: limitsSchema.nullable(),
});

/** PATCH's answer: the settings, and warnings about a provider base URL that looks wrong (accepted all the same). */
export const workspaceSettingsChanged = workspaceSettingsView.extend({ warnings: z.array(z.string()).optional() });
