// Drizzle's view of the database: every feature's tables, re-exported for the migrator and queries.
export * from "../tenancy/schema";
export * from "../evidence/schema";
