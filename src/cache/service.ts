import { readPaged, type WorkspaceSignBits } from "../db/sign-bit-index";
import type { WorkspaceScope } from "../tenancy/scope";
import type { Workspace } from "../tenancy/service";
import type { Candidate } from "./match";
import type { CacheSettingsPatch } from "./model";
import { and, desc, eq, gt } from "drizzle-orm";
import { applyUses, type EntryUses } from "./counters";
import { cacheCounters, cacheEntries } from "./schema";
import { candidateDistanceBound, dot, floatsFromBlob, floatsToBlob, signBits } from "./vector-codec";

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
const ENTRY_COLUMNS = `id, key, completion, upstream_ms AS "upstreamMs"`;

export async function findExact(scope: WorkspaceScope, key: string, now: number): Promise<StoredEntry | undefined> {
  const rows = await scope.all<StoredEntry>(`SELECT ${ENTRY_COLUMNS} FROM cache_entries WHERE workspace_id = $workspace_id AND key = $key AND expires_at > $now`, {
    key,
    now,
  });
  return rows[0];
}

export async function loadEntry(scope: WorkspaceScope, id: number): Promise<StoredEntry | undefined> {
  return (await scope.all<StoredEntry>(`SELECT ${ENTRY_COLUMNS} FROM cache_entries WHERE workspace_id = $workspace_id AND id = $id`, { id }))[0];
}

/**
 * PostgreSQL's vector statements (no extension): the partition's rows of cache_vectors through the
 * (workspace_id, scope_key) index, ranked by bit_count(bits XOR query) over the sign bits (a
 * bit(384) column; the packed bytes travel as bytea and become a bit string through their hex
 * spelling). SQLite searches in memory instead (scope.signBits, src/db/sign-bit-index.ts) and
 * keeps the sign bits in cache_entries.sign_bits.
 */
const POSTGRES_VECTOR_SQL = {
  nearest: `WITH nearest AS MATERIALIZED (
     SELECT entry_id FROM cache_vectors
     WHERE workspace_id = $workspace_id AND scope_key = $scope_key
       AND bit_count(embedding # ('x' || encode($bits::bytea, 'hex'))::bit(384)) <= $max_distance
     ORDER BY bit_count(embedding # ('x' || encode($bits::bytea, 'hex'))::bit(384)) LIMIT $k
   )
   SELECT e.id, e.key, e.prompt, e.embedding FROM nearest JOIN cache_entries e ON e.id = nearest.entry_id
   WHERE e.workspace_id = $workspace_id AND e.expires_at > $now AND e.prompt IS NOT NULL AND e.embedding IS NOT NULL`,
  insert: `INSERT INTO cache_vectors (entry_id, workspace_id, scope_key, embedding) VALUES ($id, $workspace_id, $scope_key, ('x' || encode($bits::bytea, 'hex'))::bit(384))`,
};

type CandidateRow = { id: number; key: string; prompt: string; embedding: Uint8Array };

/**
 * What a semantic search needs of an entry, kept in memory on SQLite beside its sign bits
 * (WorkspaceSignBits.keep) when it is stored or read: a search that finds it then reads no row.
 * In templated traffic every prompt has two dozen near neighbours, and reading their rows was
 * ~0.2 ms of each lookup (docs/performance.md). None of it changes while the entry lives.
 */
type KeptCandidate = { id: number; key: string; prompt: string; vector: Float32Array; expiresAt: number };

/**
 * Longer prompts are read from their row each time: a semantic prompt may hold up to ~25,000
 * characters (254 tokens of long words), and 4,096 of those would hold ~200 MB. With this bound
 * the kept rows stay under ~25 MB whatever a tenant sends.
 */
const MAX_KEPT_PROMPT_CHARS = 2048;

function keepCandidate(index: WorkspaceSignBits, scopeKey: string, row: KeptCandidate): void {
  if (row.prompt.length <= MAX_KEPT_PROMPT_CHARS) index.keep(scopeKey, row.id, row);
}

/** Rows a delete removed: the in-memory index (SQLite) forgets them once the transaction has committed. */
type RemovedRow = { id: number; scope_key: string };

/**
 * The entries of one scope nearest to `vector`: a Hamming-distance search over sign bits inside
 * the scope's partition (no other scope is read), then exact cosine similarity from the stored
 * float vectors. Entries whose sign bits differ too much to reach `threshold`
 * (candidateDistanceBound) are not read: a prompt unlike any stored one reads no row.
 */
export async function semanticCandidates(scope: WorkspaceScope, scopeKey: string, vector: Float32Array, now: number, threshold: number): Promise<Candidate<EntryRef>[]> {
  const bits = signBits(vector);
  const maxDistance = candidateDistanceBound(threshold, vector.length);
  const rows = scope.signBits
    ? await nearestInMemory(scope, scope.signBits, scopeKey, bits, maxDistance, now)
    : (await scope.all<CandidateRow>(POSTGRES_VECTOR_SQL.nearest, { bits, k: SEMANTIC_CANDIDATES, max_distance: maxDistance, scope_key: scopeKey, now })).map((row) => ({ ...row, vector: floatsFromBlob(row.embedding) }));
  return rows.map((row) => ({ entry: { id: row.id, key: row.key }, prompt: row.prompt, similarity: dot(vector, row.vector) }));
}

async function nearestInMemory(scope: WorkspaceScope, index: WorkspaceSignBits, scopeKey: string, bits: Uint8Array, maxDistance: number, now: number): Promise<KeptCandidate[]> {
  const partition = await index.partition(scopeKey, () => partitionRows(scope, scopeKey));
  const ids = partition.nearest(bits, SEMANTIC_CANDIDATES, maxDistance);
  const found: KeptCandidate[] = [];
  const unread: number[] = [];
  const kept = index.kept<KeptCandidate>(scopeKey, ids);
  ids.forEach((id, i) => {
    const row = kept[i];
    if (row && row.expiresAt > now) found.push(row);
    else unread.push(id);
  });
  if (unread.length === 0) return found;
  // CROSS JOIN keeps the plan "each id, then its row": left to itself SQLite scans the workspace's entries.
  const rows = await scope.all<CandidateRow & { expires_at: number }>(
    `SELECT e.id, e.key, e.prompt, e.embedding, e.expires_at FROM json_each($ids) AS nearest CROSS JOIN cache_entries e ON e.id = nearest.value
     WHERE e.workspace_id = $workspace_id AND e.expires_at > $now AND e.prompt IS NOT NULL AND e.embedding IS NOT NULL`,
    { ids: JSON.stringify(unread), now },
  );
  for (const row of rows) {
    const read: KeptCandidate = { id: row.id, key: row.key, prompt: row.prompt, vector: floatsFromBlob(row.embedding), expiresAt: Number(row.expires_at) };
    keepCandidate(index, scopeKey, read);
    found.push(read);
  }
  // An id no live row backs (expired, or deleted by a path that reports nothing here, such as a
  // workspace's cascade) can never be served again: it leaves the index.
  if (rows.length < unread.length) {
    const live = new Set(rows.map((row) => row.id));
    for (const id of unread) if (!live.has(id)) index.remove(scopeKey, id);
  }
  return found;
}

/** An entry whose row a lookup found gone: out of the in-memory index (SQLite) and its kept row. */
export function forgetCandidate(scope: WorkspaceScope, scopeKey: string, id: number): void {
  scope.signBits?.remove(scopeKey, id);
}

/** A scope's ids and sign bits. */
function partitionRows(scope: WorkspaceScope, scopeKey: string): Promise<{ id: number; bits: Uint8Array }[]> {
  return readPaged((after, limit) =>
    scope.all(
      `SELECT id, sign_bits AS bits FROM cache_entries
       WHERE workspace_id = $workspace_id AND scope_key = $scope_key AND id > $after AND sign_bits IS NOT NULL ORDER BY id LIMIT ${limit}`,
      { scope_key: scopeKey, after },
    ),
  );
}

function forgetRemoved(scope: WorkspaceScope, removed: RemovedRow[]): void {
  const index = scope.signBits;
  if (index) for (const row of removed) index.remove(row.scope_key, row.id);
}

/**
 * Stores (or replaces) an entry with its prompt's vector when there is one already, then drops
 * expired entries and, beyond `maxEntries`, the least recently used ones, in one transaction
 * (with the workspace's entry uses not yet written, `uses`).
 * Returns the new entry's id.
 */
export async function storeEntry(scope: WorkspaceScope, entry: NewEntry, maxEntries: number, now: number, vector?: Float32Array, uses?: EntryUses): Promise<number> {
  const bits = vector && signBits(vector);
  const { id, removed } = await scope.transaction(async (tx) => {
    // Hits not yet written (counters.ts) first: eviction goes by the entries' last use.
    if (uses) await applyUses(tx, uses);
    const replaced = await tx.all<RemovedRow>(`DELETE FROM cache_entries WHERE workspace_id = $workspace_id AND key = $key RETURNING id, scope_key`, { key: entry.key });
    const [inserted] = await tx.all<{ id: number }>(
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
    if (vector) await writeVector(tx, inserted!.id, entry.scopeKey, vector, bits!);
    const expired = await tx.all<RemovedRow>(`DELETE FROM cache_entries WHERE workspace_id = $workspace_id AND expires_at <= $now RETURNING id, scope_key`, { now });
    const evicted = await deleteOverflow(tx, maxEntries);
    return { id: inserted!.id, removed: [...replaced, ...expired, ...evicted] };
  });
  forgetRemoved(scope, removed);
  if (bits) {
    scope.signBits?.add(entry.scopeKey, id, bits);
    if (entry.prompt !== undefined && scope.signBits) keepCandidate(scope.signBits, entry.scopeKey, { id, key: entry.key, prompt: entry.prompt, vector: vector!.slice(), expiresAt: now + entry.ttlSeconds * 1000 });
  }
  return id;
}

/** Adds the embedding of an entry's prompt; false when the entry is gone meanwhile (evicted, purged). */
export async function attachVector(scope: WorkspaceScope, entryId: number, scopeKey: string, vector: Float32Array): Promise<boolean> {
  const bits = signBits(vector);
  const attached = await scope.transaction((tx) => writeVector(tx, entryId, scopeKey, vector, bits));
  if (attached) scope.signBits?.add(scopeKey, entryId, bits);
  return attached;
}

/** Inside the caller's transaction; the in-memory index (SQLite) is told after the commit. */
async function writeVector(scope: WorkspaceScope, entryId: number, scopeKey: string, vector: Float32Array, bits: Uint8Array): Promise<boolean> {
  const floats = floatsToBlob(vector);
  const params = { id: entryId, floats, size: floats.byteLength };
  if (scope.signBits) {
    const updated = await scope.run(`UPDATE cache_entries SET embedding = $floats, sign_bits = $bits, bytes = bytes + $size WHERE workspace_id = $workspace_id AND id = $id`, { ...params, bits });
    return updated.changes > 0;
  }
  const updated = await scope.run(`UPDATE cache_entries SET embedding = $floats, bytes = bytes + $size WHERE workspace_id = $workspace_id AND id = $id`, params);
  if (updated.changes === 0) return false;
  await scope.run(POSTGRES_VECTOR_SQL.insert, { id: entryId, scope_key: scopeKey, bits });
  return true;
}

/** Deletes the least recently used entries beyond `maxEntries`; returns them. */
async function deleteOverflow(scope: WorkspaceScope, maxEntries: number): Promise<RemovedRow[]> {
  const [counters] = await scope.all<{ entries: number }>(`SELECT entries FROM cache_counters WHERE workspace_id = $workspace_id`);
  const excess = Number(counters?.entries ?? 0) - maxEntries;
  if (excess <= 0) return [];
  return scope.all<RemovedRow>(
    `DELETE FROM cache_entries WHERE id IN (
       SELECT id FROM cache_entries WHERE workspace_id = $workspace_id ORDER BY last_used_at ASC, id ASC LIMIT $excess
     ) RETURNING id, scope_key`,
    { excess },
  );
}

/** Characters of a prompt shown in the entry list (the entry itself has all of it). */
const PROMPT_PREVIEW_CHARS = 300;

/** The workspace's live entries, most recently used first (the order eviction goes by, from the other end). */
export async function listEntries(scope: WorkspaceScope, page: { limit: number; offset: number }, now: number) {
  const live = gt(cacheEntries.expiresAt, new Date(now));
  const rows = await scope.select(cacheEntries, live).orderBy(desc(cacheEntries.lastUsedAt), desc(cacheEntries.id)).limit(page.limit).offset(page.offset);
  const total = await scope.count(cacheEntries, live);
  return { entries: rows.map((row) => entryView(row, PROMPT_PREVIEW_CHARS)), total, limit: page.limit, offset: page.offset };
}

/** One live entry with its whole prompt and the stored answer. */
export async function getEntry(scope: WorkspaceScope, key: string, now: number) {
  const row = await scope.first(cacheEntries, eq(cacheEntries.key, key), gt(cacheEntries.expiresAt, new Date(now)));
  return row ? { ...entryView(row, Infinity), completion: JSON.parse(row.completion) as unknown } : undefined;
}

function entryView(row: typeof cacheEntries.$inferSelect, promptChars: number) {
  const prompt = row.prompt ?? null;
  return {
    key: row.key,
    model: row.model,
    // Null: an entry only an exact repeat can hit (its request had no last user text to compare).
    prompt: prompt !== null && prompt.length > promptChars ? `${prompt.slice(0, promptChars)}…` : prompt,
    semantic: row.embedding !== null,
    bytes: row.bytes,
    hits: row.hits,
    upstream_ms: row.upstreamMs,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}

export async function deleteEntry(scope: WorkspaceScope, key: string): Promise<boolean> {
  const removed = await scope.all<RemovedRow>(`DELETE FROM cache_entries WHERE workspace_id = $workspace_id AND key = $key RETURNING id, scope_key`, { key });
  forgetRemoved(scope, removed);
  return removed.length > 0;
}

export async function purgeEntries(scope: WorkspaceScope): Promise<number> {
  const { changes } = await scope.run(`DELETE FROM cache_entries WHERE workspace_id = $workspace_id`);
  scope.signBits?.clear();
  return changes;
}

export async function cacheStats(scope: WorkspaceScope, now: number) {
  // PostgreSQL hands count and sum back as strings (bigint, numeric).
  const [live] = await scope.all<{ entries: number | string; bytes: number | string | null }>(
    `SELECT count(*) AS entries, sum(bytes) AS bytes FROM cache_entries WHERE workspace_id = $workspace_id AND expires_at > $now`,
    { now },
  );
  const counters = await scope.first(cacheCounters);
  const exactHits = counters?.exactHits ?? 0;
  const semanticHits = counters?.semanticHits ?? 0;
  const misses = counters?.misses ?? 0;
  const hits = exactHits + semanticHits;
  return {
    entries: Number(live!.entries),
    bytes: Number(live!.bytes ?? 0),
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
export async function updateCacheSettings(scope: WorkspaceScope, patch: CacheSettingsPatch): Promise<Workspace> {
  const workspace = await scope.updateWorkspace({
    cacheEnabled: patch.enabled,
    cacheSemantic: patch.semantic,
    cacheThreshold: patch.threshold,
    cacheTtlSeconds: patch.ttl_seconds,
    cacheMaxEntries: patch.max_entries,
  });
  if (patch.max_entries !== undefined) forgetRemoved(scope, await deleteOverflow(scope, patch.max_entries));
  return workspace;
}
