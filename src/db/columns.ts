import { customType, text } from "drizzle-orm/sqlite-core";

/**
 * Millisecond timestamps: sortable integers in SQL, Date objects in TypeScript. The same integer
 * in both dialects (SQLite INTEGER, PostgreSQL BIGINT, which the driver hands back as a string).
 */
const msTimestamp = customType<{ data: Date; driverData: number | string }>({
  dataType: () => "integer",
  toDriver: (value) => value.getTime(),
  fromDriver: (value) => new Date(Number(value)),
});

export const timestamp = (name: string) => msTimestamp(name);

export const createdAt = () =>
  timestamp("created_at")
    .notNull()
    .$defaultFn(() => new Date());

/** Every table of tenant data carries this column; WorkspaceScope filters on it. */
export const workspaceIdColumn = () => text("workspace_id").notNull();
