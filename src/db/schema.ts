// Drizzle's view of the database: every feature's tables, re-exported for the migrator and queries.
export * from "../tenancy/schema";
export * from "../evidence/schema";
export * from "../documents/schema";
export * from "../firewall/schema";
export * from "../cache/schema";
export * from "../usage/schema";
