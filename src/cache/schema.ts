import { blob, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, workspaceIdColumn } from "../db/columns";
import { workspaces } from "../tenancy/schema";

/**
 * One stored response. `key` is the exact request key (request-key.ts); `scope_key` groups the
 * entries a semantic lookup may choose from. The sign bits the semantic search compares are kept
 * per dialect, outside drizzle's schema: on SQLite in the column `sign_bits` of this table
 * (migration 0013, searched in memory: src/db/sign-bit-index.ts), on PostgreSQL in the table
 * `cache_vectors` (src/db/postgres-schema.ts).
 */
export const cacheEntries = sqliteTable(
  "cache_entries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    scopeKey: text("scope_key").notNull(),
    model: text("model").notNull(),
    /** Text of the last user message: the precision guard compares it with a semantic query's. Null: exact hits only. */
    prompt: text("prompt"),
    /** That message's embedding (float32, little-endian), for exact cosine re-scoring of the binary search's candidates. */
    embedding: blob("embedding", { mode: "buffer" }),
    /** The chat.completion object, assembled from the stream when the response was streamed. */
    completion: text("completion").notNull(),
    bytes: integer("bytes").notNull(),
    /** What the provider took to answer: what each hit saves. */
    upstreamMs: integer("upstream_ms").notNull(),
    hits: integer("hits").notNull().default(0),
    createdAt: createdAt(),
    /** Last store or hit: the least recently used entries are evicted first. */
    lastUsedAt: timestamp("last_used_at").notNull(),
    expiresAt: timestamp("expires_at").notNull(),
  },
  (t) => [
    uniqueIndex("cache_entries_workspace_key_unique").on(t.workspaceId, t.key),
    index("cache_entries_workspace_used_idx").on(t.workspaceId, t.lastUsedAt),
    index("cache_entries_workspace_expiry_idx").on(t.workspaceId, t.expiresAt),
  ],
);

/** Per-workspace lookup counters for GET /v1/cache/stats. */
export const cacheCounters = sqliteTable("cache_counters", {
  workspaceId: workspaceIdColumn()
    .primaryKey()
    .references(() => workspaces.id, { onDelete: "cascade" }),
  /** Rows in cache_entries, kept by triggers: the LRU bound is checked on every store without counting. */
  entries: integer("entries").notNull().default(0),
  exactHits: integer("exact_hits").notNull().default(0),
  semanticHits: integer("semantic_hits").notNull().default(0),
  misses: integer("misses").notNull().default(0),
  savedUpstreamMs: integer("saved_upstream_ms").notNull().default(0),
});
