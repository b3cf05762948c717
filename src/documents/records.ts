/** Lookups of documents, versions and variants within one workspace, shared by the service and the jobs. */
import { and, asc, desc, eq } from "drizzle-orm";
import type { WorkspaceScope } from "../tenancy/scope";
import type { ChunkingConfig } from "./chunking-config";
import { documentBlobs, documents, documentVariants, documentVersions } from "./schema";

export type DocumentRow = typeof documents.$inferSelect;
export type VersionRow = typeof documentVersions.$inferSelect;
export type VariantRow = typeof documentVariants.$inferSelect;
export type NewDocument = Omit<typeof documents.$inferInsert, "workspaceId">;
export type NewVersion = Omit<typeof documentVersions.$inferInsert, "workspaceId">;

export const findDocument = (scope: WorkspaceScope, id: string): DocumentRow | undefined => scope.select(documents, eq(documents.id, id)).get();

export const findVersion = (scope: WorkspaceScope, id: string): VersionRow | undefined => scope.select(documentVersions, eq(documentVersions.id, id)).get();

export const findVariant = (scope: WorkspaceScope, id: string): VariantRow | undefined => scope.select(documentVariants, eq(documentVariants.id, id)).get();

export const versionOfDocument = (scope: WorkspaceScope, documentId: string): VersionRow | undefined =>
  scope.select(documentVersions, eq(documentVersions.documentId, documentId)).get();

/** The newest version of a chain (highest version number). */
export const latestVersionOfChain = (scope: WorkspaceScope, chainId: string): VersionRow | undefined =>
  scope.select(documentVersions, eq(documentVersions.chainId, chainId)).orderBy(desc(documentVersions.versionNumber)).limit(1).get();

/** A version's variants, oldest first: the first is the one its upload created. */
export const variantsOfVersion = (scope: WorkspaceScope, versionId: string): VariantRow[] =>
  scope.select(documentVariants, eq(documentVariants.versionId, versionId)).orderBy(asc(documentVariants.createdAt), asc(documentVariants.id)).all();

export const variantConfig = (variant: VariantRow): ChunkingConfig => ({
  strategy: variant.chunkingStrategy,
  chunkSize: variant.chunkSize,
  chunkOverlap: variant.chunkOverlap,
});

/** The version's variant with this configuration; `created` tells whether it was made just now (status pending). */
export function ensureVariant(scope: WorkspaceScope, versionId: string, config: ChunkingConfig): { variant: VariantRow; created: boolean } {
  const existing = scope
    .select(
      documentVariants,
      and(
        eq(documentVariants.versionId, versionId),
        eq(documentVariants.chunkingStrategy, config.strategy),
        eq(documentVariants.chunkSize, config.chunkSize),
        eq(documentVariants.chunkOverlap, config.chunkOverlap),
      ),
    )
    .get();
  if (existing) return { variant: existing, created: false };
  const variant = scope
    .insert(documentVariants, {
      id: crypto.randomUUID(),
      versionId,
      chunkingStrategy: config.strategy,
      chunkSize: config.chunkSize,
      chunkOverlap: config.chunkOverlap,
      status: "pending",
    })
    .returning()
    .get();
  return { variant, created: true };
}

/** The uploaded bytes of a content hash. */
export function readBlob(scope: WorkspaceScope, contentHash: string): Uint8Array | undefined {
  const row = scope.select(documentBlobs, eq(documentBlobs.contentHash, contentHash)).get();
  return row ? new Uint8Array(row.bytes) : undefined;
}
