/** Lookups of documents, versions and variants within one workspace, shared by the service and the jobs. */
import { and, asc, desc, eq } from "drizzle-orm";
import { firstRow } from "../db/connection";
import type { WorkspaceScope } from "../tenancy/scope";
import type { ChunkingConfig } from "./chunking-config";
import { documentBlobs, documents, documentVariants, documentVersions } from "./schema";

export type DocumentRow = typeof documents.$inferSelect;
export type VersionRow = typeof documentVersions.$inferSelect;
export type VariantRow = typeof documentVariants.$inferSelect;
export type NewDocument = Omit<typeof documents.$inferInsert, "workspaceId">;
export type NewVersion = Omit<typeof documentVersions.$inferInsert, "workspaceId">;

export const findDocument = (scope: WorkspaceScope, id: string): Promise<DocumentRow | undefined> => scope.first(documents, eq(documents.id, id));

export const findVersion = (scope: WorkspaceScope, id: string): Promise<VersionRow | undefined> => scope.first(documentVersions, eq(documentVersions.id, id));

export const findVariant = (scope: WorkspaceScope, id: string): Promise<VariantRow | undefined> => scope.first(documentVariants, eq(documentVariants.id, id));

export const versionOfDocument = (scope: WorkspaceScope, documentId: string): Promise<VersionRow | undefined> =>
  scope.first(documentVersions, eq(documentVersions.documentId, documentId));

/** The newest version of a chain (highest version number). */
export const latestVersionOfChain = (scope: WorkspaceScope, chainId: string): Promise<VersionRow | undefined> =>
  firstRow(scope.select(documentVersions, eq(documentVersions.chainId, chainId)).orderBy(desc(documentVersions.versionNumber)).limit(1));

/** A version's variants, oldest first: the first is the one its upload created. */
export const variantsOfVersion = (scope: WorkspaceScope, versionId: string): Promise<VariantRow[]> =>
  scope.select(documentVariants, eq(documentVariants.versionId, versionId)).orderBy(asc(documentVariants.createdAt), asc(documentVariants.id));

export const variantConfig = (variant: VariantRow): ChunkingConfig => ({
  strategy: variant.chunkingStrategy,
  chunkSize: variant.chunkSize,
  chunkOverlap: variant.chunkOverlap,
  contextualPrefix: variant.contextualPrefix,
  redactFindings: variant.redactFindings,
  tableInlineMaxTokens: variant.tableInlineMaxTokens,
});

/** The version's variant with this chunking configuration, if it has one. */
export function variantWithConfig(scope: WorkspaceScope, versionId: string, config: ChunkingConfig): Promise<VariantRow | undefined> {
  return scope.first(
    documentVariants,
    and(
      eq(documentVariants.versionId, versionId),
      eq(documentVariants.chunkingStrategy, config.strategy),
      eq(documentVariants.chunkSize, config.chunkSize),
      eq(documentVariants.chunkOverlap, config.chunkOverlap),
      eq(documentVariants.contextualPrefix, config.contextualPrefix),
      eq(documentVariants.redactFindings, config.redactFindings),
      eq(documentVariants.tableInlineMaxTokens, config.tableInlineMaxTokens),
    ),
  );
}

/** The version's variant with this configuration; `created` tells whether it was made just now (status pending). */
export async function ensureVariant(scope: WorkspaceScope, versionId: string, config: ChunkingConfig): Promise<{ variant: VariantRow; created: boolean }> {
  const existing = await variantWithConfig(scope, versionId, config);
  if (existing) return { variant: existing, created: false };
  const [variant] = await scope.insert(documentVariants, {
      id: crypto.randomUUID(),
      versionId,
      chunkingStrategy: config.strategy,
      chunkSize: config.chunkSize,
      chunkOverlap: config.chunkOverlap,
      status: "pending",
      // Spread: drizzle's insert type loses a defaulted boolean column in WorkspaceScope's Omit (TS2353).
      ...{ contextualPrefix: config.contextualPrefix, redactFindings: config.redactFindings, tableInlineMaxTokens: config.tableInlineMaxTokens },
    })
    .returning();
  return { variant: variant!, created: true };
}

/** The uploaded bytes of a content hash. */
export async function readBlob(scope: WorkspaceScope, contentHash: string): Promise<Uint8Array | undefined> {
  const row = await scope.first(documentBlobs, eq(documentBlobs.contentHash, contentHash));
  return row ? new Uint8Array(row.bytes) : undefined;
}
