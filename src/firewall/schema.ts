import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, timestamp, workspaceIdColumn } from "../db/columns";
import { workspaces } from "../tenancy/schema";

/**
 * The built-in library as this data dir knows it (shared by every workspace). Rows are upserted
 * by slug from src/firewall/library.ts at start-up. Vectors live in the vec0 table
 * firewall_builtin_vectors (custom migration), keyed by the same id.
 */
export const firewallBuiltinPatterns = sqliteTable("firewall_builtin_patterns", {
  /** Stable slug, e.g. "pi.ignore-previous". */
  id: text("id").primaryKey(),
  family: text("family").notNull(),
  side: text("side", { enum: ["input", "output"] }).notNull(),
  text: text("text").notNull(),
  action: text("action", { enum: ["block", "warn", "log"] }).notNull(),
  threshold: real("threshold").notNull(),
  /** LIBRARY_VERSION that last wrote this row. */
  libraryVersion: integer("library_version").notNull(),
  /** Which embedder produced the stored vector ("<model>/<precision>"); re-embedded when it changes. */
  vectorModel: text("vector_model"),
  createdAt: createdAt(),
});

/** A workspace's own patterns. Vectors: vec0 table firewall_custom_vectors. */
export const firewallCustomPatterns = sqliteTable(
  "firewall_custom_patterns",
  {
    id: text("id").primaryKey(),
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    family: text("family").notNull(),
    side: text("side", { enum: ["input", "output"] }).notNull(),
    text: text("text").notNull(),
    action: text("action", { enum: ["block", "warn", "log"] }).notNull(),
    threshold: real("threshold").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    vectorModel: text("vector_model"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [index("firewall_custom_patterns_workspace_idx").on(t.workspaceId)],
);

/** Built-in patterns a workspace switched off (row present = off). */
export const firewallDisabledBuiltins = sqliteTable(
  "firewall_disabled_builtins",
  {
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    patternId: text("pattern_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.patternId] })],
);

/**
 * A workspace's own action or threshold for a built-in pattern; null keeps the library's default
 * (so a library upgrade that moves a default still reaches the field the workspace never set).
 */
export const firewallBuiltinOverrides = sqliteTable(
  "firewall_builtin_overrides",
  {
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    patternId: text("pattern_id").notNull(),
    action: text("action", { enum: ["block", "warn", "log"] }),
    threshold: real("threshold"),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.patternId] })],
);

/** Built-in families a workspace switched off (row present = off); custom patterns keep their own switch. */
export const firewallDisabledFamilies = sqliteTable(
  "firewall_disabled_families",
  {
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    family: text("family").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.family] })],
);
