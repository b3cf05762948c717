import type { WorkspaceScope } from "../tenancy/scope";
import type { Workspace } from "../tenancy/service";
import type { Candidate } from "./match";
import type { CacheSettingsPatch } from "./model";
import { cacheCounters } from "./schema";
import { dot, floatsFromBlob, floatsToBlob, signBits } from "./vector-codec";

/** Without a workspace threshold: chosen on the dev sets (docs/cache.md). */
export const DEFAULT_SEMANTIC_THRESHOLD = 0.9;

/** Nearest entries by Hamming distance that are re-scored with exact cosine similarity. */
export const SEMANTIC_CANDIDATES = 24;

export type StoredEntry = { id: number; key: string; completion: string; upstreamMs: number };

export type NewEntry = {
  key: string;
  scopeKey: string;
  model: string;
  prompt: string | undefined;
  completion: string;
  upstreamMs: number;
  ttlSeconds: number;
};

export type EntryRef = { id: number; key: string };

// Hot-path statements are raw SQL: bun:sqlite caches them compiled, drizzle rebuilds its SQL per call.
const ENTRY_COLUMNS = "id, key, completion, upstream_ms AS upstreamMs";

export function findExact(scope: WorkspaceScope, key: string, now: number): StoredEntry | undefined {
  return scope.all<StoredEntry>(`SELECT ${ENTRY_COLUMNS} FROM cache_entries WHERE workspace_id = $workspace_id AND key = $key AND expires_at > $now`, {
    key,
    now,
  })[0];
}

export function loadEntry(scope: WorkspaceScope, id: number): StoredEntry | undefined {
  return scope.all<StoredEntry>(`SELECT ${ENTRY_COLUMNS} FROM cache_entries WHERE workspace_id = $workspace_id AND id = $id`, { id })[0];
}

/**
 * The entries of one scope nearest to `vector`: a Hamming-distance KNN over sign bits inside the
 * scope's vec0 partition (no other scope is read), then exact cosine similarity from the stored
 * float vectors. MATERIALIZED and CROSS JOIN pin the plan to "KNN first, then the few rows by
 * id"; left to itself SQLite scans the workspace's entries and probes the KNN result.
 */
export function semanticCandidates(scope: WorkspaceScope, scopeKey: string, vector: Float32Array, now: number): Candidate<EntryRef>[] {
  const rows = scope.all<{ id: number; key: string; prompt: string; embedding: Uint8Array }>(
    `WITH nearest AS MATERIALIZED (
       SELECT entry_id FROM cache_vectors
       WHERE embedding MATCH vec_bit($bits) AND k = $k AND workspace_id = $workspace_id AND scope_key = $scope_key
     )
     SELECT e.id, e.key, e.prompt, e.embedding FROM nearest CROSS JOIN cache_entries e ON e.id = nearest.entry_id
     WHERE e.workspace_id = $workspace_id AND e.expires_at > $now AND e.prompt IS NOT NULL AND e.embedding IS NOT NULL`,
    { bits: signBits(vector), k: SEMANTIC_CANDIDATES, scope_key: scopeKey, now },
  );
  return rows.map((row) => ({ entry: { id: row.id, key: row.key }, prompt: row.prompt, similarity: dot(vector, floatsFromBlob(row.embedding)) }));
}

export function recordHit(scope: WorkspaceScope, entry: StoredEntry, kind: "exact" | "semantic", now: number): void {
  scope.transaction((tx) => {
    tx.run(`UPDATE cache_entries SET hits = hits + 1, last_used_at = $now WHERE workspace_id = $workspace_id AND id = $id`, { id: entry.id, now });
    bumpCounters(tx, { exact: kind === "exact" ? 1 : 0, semantic: kind === "semantic" ? 1 : 0, misses: 0, saved: entry.upstreamMs });
  });
}

export function recordMiss(scope: WorkspaceScope): void {
  bumpCounters(scope, { exact: 0, semantic: 0, misses: 1, saved: 0 });
}

function bumpCounters(scope: WorkspaceScope, by: { exact: number; semantic: number; misses: number; saved: number }) {
  scope.run(
    `INSERT INTO cache_counters (workspace_id, exact_hits, semantic_hits, misses, saved_upstream_ms)
     VALUES ($workspace_id, $exact, $semantic, $misses, $saved)
     ON CONFLICT (workspace_id) DO UPDATE SET
       exact_hits = exact_hits + excluded.exact_hits,
       semantic_hits = semantic_hits + excluded.semantic_hits,
       misses = misses + excluded.misses,
       saved_upstream_ms = saved_upstream_ms + excluded.saved_upstream_ms`,
    by,
  );
}

/**
 * Stores (or replaces) an entry with its prompt's vector when there is one already, then drops
 * expired entries and, beyond `maxEntries`, the least recently used ones, in one transaction.
 * Returns the new entry's id.
 */
export function storeEntry(scope: WorkspaceScope, entry: NewEntry, maxEntries: number, now: number, vector?: Float32Array): number {
  return scope.transaction((tx) => {
    tx.run(`DELETE FROM cache_entries WHERE workspace_id = $workspace_id AND key = $key`, { key: entry.key });
    const [inserted] = tx.all<{ id: number }>(
      `INSERT INTO cache_entries (workspace_id, key, scope_key, model, prompt, completion, bytes, upstream_ms, created_at, last_used_at, expires_at)
       VALUES ($workspace_id, $key, $scope_key, $model, $prompt, $completion, $bytes, $upstream_ms, $now, $now, $expires_at)
       RETURNING id`,
      {
        key: entry.key,
        scope_key: entry.scopeKey,
        model: entry.model,
        prompt: entry.prompt ?? null,
        completion: entry.completion,
        bytes: Buffer.byteLength(entry.completion) + Buffer.byteLength(entry.prompt ?? ""),
        upstream_ms: Math.round(entry.upstreamMs),
        now,
        expires_at: now + entry.ttlSeconds * 1000,
      },
    );
    if (vector) writeVector(tx, inserted!.id, entry.scopeKey, vector);
    tx.run(`DELETE FROM cache_entries WHERE workspace_id = $workspace_id AND expires_at <= $now`, { now });
    evictOverflow(tx, maxEntries);
    return inserted!.id;
  });
}

/** Adds the embedding of an entry's prompt; false when the entry is gone meanwhile (evicted, purged). */
export function attachVector(scope: WorkspaceScope, entryId: number, scopeKey: string, vector: Float32Array): boolean {
  return scope.transaction((tx) => writeVector(tx, entryId, scopeKey, vector));
}

function writeVector(scope: WorkspaceScope, entryId: number, scopeKey: string, vector: Float32Array): boolean {
  const floats = floatsToBlob(vector);
  const updated = scope.run(`UPDATE cache_entries SET embedding = $floats, bytes = bytes + $size WHERE workspace_id = $workspace_id AND id = $id`, {
    id: entryId,
    floats,
    size: floats.byteLength,
  });
  if (updated.changes === 0) return false;
  scope.run(`INSERT INTO cache_vectors (entry_id, workspace_id, scope_key, embedding) VALUES ($id, $workspace_id, $scope_key, vec_bit($bits))`, {
    id: entryId,
    scope_key: scopeKey,
    bits: signBits(vector),
  });
  return true;
}

/** Deletes the least recently used entries beyond `maxEntries`; returns how many. */
export function evictOverflow(scope: WorkspaceScope, maxEntries: number): number {
  const [counters] = scope.all<{ entries: number }>(`SELECT entries FROM cache_counters WHERE workspace_id = $workspace_id`);
  const excess = (counters?.entries ?? 0) - maxEntries;
  if (excess <= 0) return 0;
  return scope.run(
    `DELETE FROM cache_entries WHERE id IN (
       SELECT id FROM cache_entries WHERE workspace_id = $workspace_id ORDER BY last_used_at ASC, id ASC LIMIT $excess
     )`,
    { excess },
  ).changes;
}

export function deleteEntry(scope: WorkspaceScope, key: string): boolean {
  return scope.run(`DELETE FROM cache_entries WHERE workspace_id = $workspace_id AND key = $key`, { key }).changes > 0;
}

export function purgeEntries(scope: WorkspaceScope): number {
  return scope.run(`DELETE FROM cache_entries WHERE workspace_id = $workspace_id`).changes;
}

export function cacheStats(scope: WorkspaceScope, now: number) {
  const [live] = scope.all<{ entries: number; bytes: number | null }>(
    `SELECT count(*) AS entries, sum(bytes) AS bytes FROM cache_entries WHERE workspace_id = $workspace_id AND expires_at > $now`,
    { now },
  );
  const counters = scope.select(cacheCounters).get();
  const exactHits = counters?.exactHits ?? 0;
  const semanticHits = counters?.semanticHits ?? 0;
  const misses = counters?.misses ?? 0;
  const hits = exactHits + semanticHits;
  return {
    entries: live!.entries,
    bytes: live!.bytes ?? 0,
    hits,
    exact_hits: exactHits,
    semantic_hits: semanticHits,
    misses,
    hit_rate: hits + misses === 0 ? 0 : Number((hits / (hits + misses)).toFixed(4)),
    upstream_ms_saved: counters?.savedUpstreamMs ?? 0,
  };
}

export function cacheSettingsView(workspace: Workspace) {
  return {
    enabled: workspace.cacheEnabled,
    semantic: workspace.cacheSemantic,
    threshold: workspace.cacheThreshold,
    effective_threshold: workspace.cacheThreshold ?? DEFAULT_SEMANTIC_THRESHOLD,
    ttl_seconds: workspace.cacheTtlSeconds,
    max_entries: workspace.cacheMaxEntries,
  };
}

/**
 * Applies a settings change to the scope's own workspace row; a lower maximum evicts at once.
 */
export function updateCacheSettings(scope: WorkspaceScope, patch: CacheSettingsPatch): Workspace {
  const workspace = scope.updateWorkspace({
    cacheEnabled: patch.enabled,
    cacheSemantic: patch.semantic,
    cacheThreshold: patch.threshold,
    cacheTtlSeconds: patch.ttl_seconds,
    cacheMaxEntries: patch.max_entries,
  });
  if (patch.max_entries !== undefined) evictOverflow(scope, patch.max_entries);
  return workspace;
}
