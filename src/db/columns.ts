import { integer, text } from "drizzle-orm/sqlite-core";

/** Millisecond timestamps: sortable integers in SQL, Date objects in TypeScript. */
export const timestamp = (name: string) => integer(name, { mode: "timestamp_ms" });

export const createdAt = () =>
  timestamp("created_at")
    .notNull()
    .$defaultFn(() => new Date());

/** Every table of tenant data carries this column; WorkspaceScope filters on it. */
export const workspaceIdColumn = () => text("workspace_id").notNull();
