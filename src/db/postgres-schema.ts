/**
 * The PostgreSQL twin of every drizzle table, derived from the SQLite definitions in the feature
 * folders: one schema definition per table drives both dialects. drizzle-kit reads this file
 * (drizzle.postgres.config.ts) to generate migrations/postgres; at run time queries are built
 * from the SQLite tables on either dialect, so values are stored the same way in both:
 * timestamps as millisecond integers (BIGINT), booleans as 0/1 (INTEGER), JSON as text, blobs as BYTEA.
 *
 * The vector tables have no SQLite drizzle definition (there they are sqlite-vec virtual tables,
 * hand-written migrations); here they are plain tables of packed vectors, defined below.
 */
import { is, SQL, sql } from "drizzle-orm";
import {
  bigint,
  bit,
  customType,
  doublePrecision,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  type AnyPgColumn,
  type PgColumnBuilderBase,
} from "drizzle-orm/pg-core";
import { getTableConfig, SQLiteTable, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import * as sqliteSchema from "./schema";

export const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

/** SQLite SQL defaults and their PostgreSQL spelling; an unknown one fails loudly here, not in a migration. */
const SQL_DEFAULTS: Record<string, SQL> = {
  "(unixepoch() * 1000)": sql`(extract(epoch from now()) * 1000)::bigint`,
};

function pgColumn(column: SQLiteColumn): PgColumnBuilderBase {
  const name = column.name;
  // The builders differ in type per case; what follows only chains the modifiers they share.
  let builder: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  switch (column.columnType) {
    case "SQLiteText":
    case "SQLiteTextJson":
      builder = text(name);
      break;
    case "SQLiteInteger":
    case "SQLiteBoolean":
      builder = column.primary && (column as unknown as { autoIncrement: boolean }).autoIncrement ? integer(name).generatedByDefaultAsIdentity() : integer(name);
      break;
    case "SQLiteCustomColumn": // the millisecond timestamp of columns.ts
      builder = bigint(name, { mode: "number" });
      break;
    case "SQLiteReal":
      builder = doublePrecision(name);
      break;
    case "SQLiteBlobBuffer":
      builder = bytea(name);
      break;
    default:
      throw new Error(`postgres-schema: no PostgreSQL type for ${column.columnType} (${name})`);
  }
  if (column.notNull) builder = builder.notNull();
  if (column.primary) builder = builder.primaryKey();
  if (column.hasDefault && column.default !== undefined) {
    if (is(column.default, SQL)) {
      const source = (column.default as SQL).queryChunks.map((chunk) => (chunk as { value?: string[] }).value?.join("") ?? "").join("");
      const translated = SQL_DEFAULTS[source];
      if (!translated) throw new Error(`postgres-schema: no PostgreSQL spelling of the default ${source} (${name})`);
      builder = builder.default(translated);
    } else builder = builder.default(typeof column.default === "boolean" ? Number(column.default) : column.default);
  }
  return builder;
}

function pgTwin(table: SQLiteTable, resolve: (name: string) => ReturnType<typeof pgTable>) {
  const config = getTableConfig(table);
  const keys = Object.fromEntries(Object.entries(table).filter(([, value]) => config.columns.includes(value as SQLiteColumn))) as Record<string, SQLiteColumn>;
  const columnKey = (column: SQLiteColumn) => Object.entries(keys).find(([, c]) => c === column)![0];
  const columns = Object.fromEntries(Object.entries(keys).map(([key, column]) => [key, pgColumn(column)]));
  return pgTable(config.name, columns, (t) => {
    const own = (column: SQLiteColumn) => (t as Record<string, AnyPgColumn>)[columnKey(column)]!;
    return [
      ...config.indexes.map((ix) => {
        const cols = ix.config.columns.map((c) => own(c as SQLiteColumn)) as [AnyPgColumn, ...AnyPgColumn[]];
        return (ix.config.unique ? uniqueIndex(ix.config.name) : index(ix.config.name)).on(...cols);
      }),
      ...config.primaryKeys.map((pk) => primaryKey({ columns: pk.columns.map(own) as [AnyPgColumn, ...AnyPgColumn[]] })),
      ...config.foreignKeys.map((fk) => {
        const ref = fk.reference();
        const target = resolve(getTableConfig(ref.foreignTable).name);
        const targetKeys = Object.entries(ref.foreignTable).filter(([, v]) => ref.foreignColumns.includes(v as SQLiteColumn));
        const foreignColumns = ref.foreignColumns.map((c) => (target as unknown as Record<string, AnyPgColumn>)[targetKeys.find(([, v]) => v === c)![0]]!);
        let key = foreignKey({ name: fk.getName(), columns: ref.columns.map(own) as [AnyPgColumn, ...AnyPgColumn[]], foreignColumns: foreignColumns as [AnyPgColumn, ...AnyPgColumn[]] });
        if (fk.onDelete) key = key.onDelete(fk.onDelete);
        return key;
      }),
    ];
  });
}

const twins = new Map<string, ReturnType<typeof pgTable>>();
const sqliteTables = (Object.values(sqliteSchema) as unknown[]).filter((value): value is SQLiteTable => is(value, SQLiteTable));
const byName = new Map(sqliteTables.map((table) => [getTableConfig(table).name, table]));
function twinOf(name: string): ReturnType<typeof pgTable> {
  let twin = twins.get(name);
  if (!twin) {
    twin = pgTwin(byName.get(name)!, twinOf);
    twins.set(name, twin);
  }
  return twin;
}

/** Every SQLite table's PostgreSQL twin, by table name. */
export const postgresTables: Record<string, ReturnType<typeof pgTable>> = Object.fromEntries([...byName.keys()].map((name) => [name, twinOf(name)]));

// Named exports for drizzle-kit (it reads a schema module's exported tables); the schema test
// checks that no table is left out.
export const {
  workspaces,
  users,
  sessions,
  api_keys: apiKeys,
  evidence,
  documents,
  document_versions: documentVersions,
  document_variants: documentVariants,
  document_chunks: documentChunks,
  document_blobs: documentBlobs,
  document_usage: documentUsage,
  firewall_builtin_patterns: firewallBuiltinPatterns,
  firewall_custom_patterns: firewallCustomPatterns,
  firewall_disabled_builtins: firewallDisabledBuiltins,
  firewall_builtin_overrides: firewallBuiltinOverrides,
  firewall_disabled_families: firewallDisabledFamilies,
  cache_entries: cacheEntries,
  cache_counters: cacheCounters,
  usage_counters: usageCounters,
} = postgresTables;

// ---- vectors (PostgreSQL only; SQLite keeps them in sqlite-vec tables of the same names and columns, except the cache's sign bits: cache_entries.sign_bits) ----

/** One 384-dimensional float32 vector (little-endian) per chunk; goes with its chunk. */
export const chunkEmbeddings = pgTable("chunk_embeddings", {
  chunkSeq: integer("chunk_seq")
    .primaryKey()
    .references(() => documentChunks!.seq as AnyPgColumn, { onDelete: "cascade" }),
  workspaceId: text("workspace_id").notNull(),
  embedding: bytea("embedding").notNull(),
});

export const firewallBuiltinVectors = pgTable("firewall_builtin_vectors", {
  patternId: text("pattern_id")
    .primaryKey()
    .references(() => firewallBuiltinPatterns!.id as AnyPgColumn, { onDelete: "cascade" }),
  embedding: bytea("embedding").notNull(),
});

export const firewallCustomVectors = pgTable("firewall_custom_vectors", {
  patternId: text("pattern_id")
    .primaryKey()
    .references(() => firewallCustomPatterns!.id as AnyPgColumn, { onDelete: "cascade" }),
  workspaceId: text("workspace_id").notNull(),
  embedding: bytea("embedding").notNull(),
});

/**
 * The sign bits of a cache entry's prompt embedding (a native bit(384): 48 bytes), partitioned
 * by workspace and scope key (SQLite keeps them in cache_entries.sign_bits and searches them in
 * memory, src/db/sign-bit-index.ts): a semantic lookup reads one partition
 * through the index and ranks it by Hamming distance, bit_count(embedding # query). (bit strings,
 * unlike bytea, have XOR.)
 */
export const cacheVectors = pgTable(
  "cache_vectors",
  {
    entryId: integer("entry_id")
      .primaryKey()
      .references(() => cacheEntries!.id as AnyPgColumn, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    scopeKey: text("scope_key").notNull(),
    embedding: bit("embedding", { dimensions: 384 }).notNull(),
  },
  (t) => [index("cache_vectors_partition_idx").on(t.workspaceId, t.scopeKey)],
);
