import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, workspaceIdColumn } from "../db/columns";
import { workspaces } from "../tenancy/schema";
import type { UpstreamAttempt } from "../proxy/upstream";
import type { ProtectionRecord } from "../data-protection/stage";

/** A cache candidate above the threshold that the verifier rejected: its similarity and the reason. */
export type CacheRejection = { similarity: number; reason: string };

/** The cache entry that answered a request: its key (GET /v1/cache/entries/{key}), how it matched and how closely. */
export type CacheHitRef = { key: string; kind: "exact" | "semantic"; similarity: number };

/** One durable record per proxied request (issue: evidence log). */
export const evidence = sqliteTable(
  "evidence",
  {
    requestId: text("request_id").primaryKey(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    keyId: text("key_id"),
    createdAt: createdAt(),
    /** The API used, as "METHOD /path": "POST /v1/chat/completions", "POST /v1/messages", "GET /v1/models"… (rows before the column existed were all chat completions). */
    api: text("api").notNull().default("POST /v1/chat/completions"),
    model: text("model"),
    stream: integer("stream", { mode: "boolean" }).notNull(),
    status: integer("status").notNull(),
    cacheStatus: text("cache_status", { enum: ["hit", "miss", "skip"] }).notNull(),
    /** The most similar semantic candidate the cache's verifier turned down, and why (null if none). */
    cacheRejected: text("cache_rejected", { mode: "json" }).$type<CacheRejection>(),
    cacheHit: text("cache_hit", { mode: "json" }).$type<CacheHitRef>(),
    /** Strongest firewall action taken: allow, log, warn or block. */
    firewallAction: text("firewall_action", { enum: ["allow", "log", "warn", "block"] }).notNull(),
    /** JSON array of the patterns that fired, input and output side. */
    firewallMatches: text("firewall_matches", { mode: "json" }).$type<unknown[]>().notNull(),
    overheadMs: integer("overhead_ms").notNull(),
    upstreamMs: integer("upstream_ms").notNull(),
    promptTokens: integer("prompt_tokens"),
    completionTokens: integer("completion_tokens"),
    totalTokens: integer("total_tokens"),
    /** Input tokens read from the provider's prompt cache (part of prompt_tokens). */
    cachedTokens: integer("cached_tokens"),
    /** Output tokens spent reasoning (part of completion_tokens). */
    reasoningTokens: integer("reasoning_tokens"),
    /** The provider gave no usage: the counts are Sieve's tokenizer estimate (src/usage/estimate.ts). */
    usageEstimated: integer("usage_estimated", { mode: "boolean" }).notNull().default(false),
    /** US dollars at catalogue or operator prices; null when the model has no price. A cache hit costs 0. */
    costUsd: real("cost_usd"),
    /** A cache hit: what the stored answer's tokens would have cost at the provider. */
    savedCostUsd: real("saved_cost_usd"),
    /** Soft limits this request went past (e.g. "spend_per_day_usd"), comma-separated; null: none. */
    limitWarning: text("limit_warning"),
    promptSha256: text("prompt_sha256").notNull(),
    requestBody: text("request_body"),
    responseBody: text("response_body"),
    error: text("error"),
    /** A routed request's tries, in order: [{target, outcome, status, ms}] (null: no route applied). */
    attempts: text("attempts", { mode: "json" }).$type<UpstreamAttempt[]>(),
    /** Data protection findings: [{side, type, rule?, action, count, where}] — never a value (null: none). */
    dataProtection: text("data_protection", { mode: "json" }).$type<ProtectionRecord[]>(),
  },
  (t) => [index("evidence_workspace_time_idx").on(t.workspaceId, t.createdAt)],
);
