import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, workspaceIdColumn } from "../db/columns";
import type { StoredPolicy } from "../data-protection/model";
import type { RoutingDocument } from "../routing/model";
import type { Limits } from "../usage/model";

export const KEY_ROLES = ["admin", "service"] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

export const workspaces = sqliteTable("workspaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: createdAt(),
  /** Store request and response bodies in the evidence log. */
  logBodies: integer("log_bodies", { mode: "boolean" }).notNull().default(true),
  /** Scan the system prompt too (off: only user and tool messages are scanned). */
  firewallScanSystem: integer("firewall_scan_system", { mode: "boolean" }).notNull().default(false),
  cacheEnabled: integer("cache_enabled", { mode: "boolean" }).notNull().default(true),
  cacheSemantic: integer("cache_semantic", { mode: "boolean" }).notNull().default(true),
  /** Null: the built-in default threshold. */
  cacheThreshold: real("cache_threshold"),
  cacheTtlSeconds: integer("cache_ttl_seconds").notNull().default(7 * 24 * 3600),
  cacheMaxEntries: integer("cache_max_entries").notNull().default(10_000),
  /** Null: the server's --upstream-url. */
  upstreamUrl: text("upstream_url"),
  /** Null: the server's --anthropic-upstream-url. */
  anthropicUpstreamUrl: text("anthropic_upstream_url"),
  /** The workspace's own routes (src/routing), as PUT /api/routing accepted them; null: the operator's only. */
  routing: text("routing", { mode: "json" }).$type<RoutingDocument>(),
  /** Its routing secrets, name → sealed value (src/routing/secret-box.ts). Never returned by any API. */
  routingSecrets: text("routing_secrets", { mode: "json" }).$type<Record<string, string>>(),
  /** Data protection policy (src/data-protection): actions by entity type and custom patterns; null: the defaults. */
  dataProtection: text("data_protection", { mode: "json" }).$type<StoredPolicy>(),
  /** Its limits and budgets (src/usage/limits.ts) as PATCH /api/workspace set them; null: the server's defaults. */
  limits: text("limits", { mode: "json" }).$type<Limits>(),
});

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_unique").on(t.email)],
);

export const sessions = sqliteTable(
  "sessions",
  {
    /** SHA-256 of the cookie token; the token itself is never stored. */
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    csrfToken: text("csrf_token").notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at").notNull(),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** First characters of the key, safe to show ("sieve_Ab12…"). */
    visiblePrefix: text("visible_prefix").notNull(),
    /** SHA-256 of the whole key; keys are 190 bits of randomness, so a fast hash is enough. */
    secretHash: text("secret_hash").notNull(),
    /**
     * admin: may also manage the workspace's keys (like a dashboard session); service: the proxy,
     * firewall, cache, documents and settings APIs only. Existing keys become service keys.
     */
    role: text("role", { enum: KEY_ROLES }).notNull().default("service"),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at"),
    revokedAt: timestamp("revoked_at"),
    /** The key's own limits (src/usage/limits.ts), on top of the workspace's; null: the server's key defaults. */
    limits: text("limits", { mode: "json" }).$type<Limits>(),
  },
  (t) => [uniqueIndex("api_keys_secret_hash_unique").on(t.secretHash), index("api_keys_workspace_idx").on(t.workspaceId)],
);
