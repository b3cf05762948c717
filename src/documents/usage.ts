import { sql } from "drizzle-orm";
import type { WorkspaceScope } from "../tenancy/scope";
import { documentUsage } from "./schema";

type Counter = Exclude<keyof typeof documentUsage.$inferInsert, "workspaceId" | "updatedAt">;
export type UsageDelta = Partial<Record<Counter, number>>;

/** Adds to the workspace's running totals (inside the caller's transaction, so totals match what was written). */
export async function addUsage(scope: WorkspaceScope, delta: UsageDelta): Promise<void> {
  const increments = Object.fromEntries(
    Object.entries(delta).map(([counter, amount]) => [counter, sql`${documentUsage[counter as Counter]} + ${amount}`]),
  );
  await scope
    .insert(documentUsage, { ...delta, updatedAt: new Date() })
    .onConflictDoUpdate({ target: documentUsage.workspaceId, set: { ...increments, updatedAt: new Date() } });
}

/** GET /api/usage: document processing totals of the caller's workspace. */
export async function usageView(scope: WorkspaceScope) {
  const row = await scope.first(documentUsage);
  return {
    workspace_id: scope.workspaceId,
    documents: {
      documents_uploaded: row?.documentsUploaded ?? 0,
      duplicates_detected: row?.duplicatesDetected ?? 0,
      variants_processed: row?.variantsProcessed ?? 0,
      pages_processed: row?.pagesProcessed ?? 0,
      pages_saved: row?.pagesSaved ?? 0,
      chunks_created: row?.chunksCreated ?? 0,
      embeddings_computed: row?.embeddingsComputed ?? 0,
      embeddings_reused: row?.embeddingsReused ?? 0,
    },
  };
}
