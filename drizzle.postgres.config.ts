import { defineConfig } from "drizzle-kit";

// PostgreSQL (--database postgres://…): the twin of every SQLite table, see src/db/postgres-schema.ts.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/postgres-schema.ts",
  out: "./migrations/postgres",
});
