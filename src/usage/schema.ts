import { integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamp, workspaceIdColumn } from "../db/columns";
import { workspaces } from "../tenancy/schema";

/**
 * Running totals of one limited subject (the workspace, or one of its keys) in one window
 * (minute, UTC day, UTC month): the counters every instance of a fleet adds to and reads, so a
 * limit holds across instances. Written only for subjects that have a limit of that kind.
 */
export const usageCounters = sqliteTable(
  "usage_counters",
  {
    workspaceId: workspaceIdColumn().references(() => workspaces.id, { onDelete: "cascade" }),
    /** "workspace", or "key:<id>". */
    subject: text("subject").notNull(),
    period: text("period", { enum: ["minute", "day", "month"] }).notNull(),
    startsAt: timestamp("starts_at").notNull(),
    requests: integer("requests").notNull().default(0),
    /** A double: a month of a large workspace's tokens passes a 32-bit integer. */
    tokens: real("tokens").notNull().default(0),
    costUsd: real("cost_usd").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.subject, t.period, t.startsAt] })],
);
