/**
 * The cache's hit and miss counters and each hit entry's use (hits, last used: the LRU order),
 * gathered in memory and written in one transaction per workspace every interval (the evidence
 * writer's, --evidence-flush-ms), not in a write of their own beside every request: on SQLite
 * that write was a commit per proxied request. Reading the statistics writes what is pending
 * first, so an instance's own figures are exact; on a fleet another instance's lag by at most one
 * interval, and a hard crash loses at most one interval of counts (never an entry).
 */
import type { Logger } from "../logging/logger";
import type { WorkspaceScope } from "../tenancy/scope";

/** Entry id → hits since the last write and when it was last used. */
export type EntryUses = Map<number, { hits: number; at: number }>;

/** Inside the caller's transaction: the entries' hit counts and LRU time brought up to date. */
export async function applyUses(tx: WorkspaceScope, uses: EntryUses): Promise<void> {
  for (const [id, { hits, at }] of uses) {
    await tx.run(`UPDATE cache_entries SET hits = hits + $hits, last_used_at = CASE WHEN last_used_at < $at THEN $at ELSE last_used_at END WHERE workspace_id = $workspace_id AND id = $id`, { id, hits, at });
  }
}

type Pending = { scope: WorkspaceScope; exact: number; semantic: number; misses: number; savedMs: number; used: EntryUses };

export class CacheCounters {
  #pending = new Map<string, Pending>();
  #flushing: Promise<void> = Promise.resolve();
  readonly #timer: Timer;

  constructor(
    private readonly log: Logger,
    intervalMs: number,
  ) {
    this.#timer = setInterval(() => void this.flush(), intervalMs);
    this.#timer.unref();
  }

  hit(scope: WorkspaceScope, entry: { id: number; upstreamMs: number }, kind: "exact" | "semantic", now: number): void {
    const pending = this.#of(scope);
    pending[kind]++;
    pending.savedMs += entry.upstreamMs;
    const used = pending.used.get(entry.id);
    pending.used.set(entry.id, { hits: (used?.hits ?? 0) + 1, at: now });
  }

  miss(scope: WorkspaceScope): void {
    this.#of(scope).misses++;
  }

  /**
   * The workspace's pending entry uses, handed to a store that is about to evict by LRU order (it
   * writes them in its own transaction, so the order it evicts by is current).
   */
  takeUses(workspaceId: string): EntryUses | undefined {
    const pending = this.#pending.get(workspaceId);
    if (!pending || pending.used.size === 0) return undefined;
    const { used } = pending;
    pending.used = new Map();
    return used;
  }

  /** Writes everything pending; resolves when it is written (a failure is logged, the counts are dropped). */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#write());
    return this.#flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }

  #of(scope: WorkspaceScope): Pending {
    let pending = this.#pending.get(scope.workspaceId);
    if (!pending) this.#pending.set(scope.workspaceId, (pending = { scope, exact: 0, semantic: 0, misses: 0, savedMs: 0, used: new Map() }));
    return pending;
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    for (const { scope, exact, semantic, misses, savedMs, used } of batch) {
      try {
        await scope.transaction(async (tx) => {
          await applyUses(tx, used);
          await tx.run(
            `INSERT INTO cache_counters (workspace_id, exact_hits, semantic_hits, misses, saved_upstream_ms)
             VALUES ($workspace_id, $exact, $semantic, $misses, $saved)
             ON CONFLICT (workspace_id) DO UPDATE SET
               exact_hits = cache_counters.exact_hits + excluded.exact_hits,
               semantic_hits = cache_counters.semantic_hits + excluded.semantic_hits,
               misses = cache_counters.misses + excluded.misses,
               saved_upstream_ms = cache_counters.saved_upstream_ms + excluded.saved_upstream_ms`,
            { exact, semantic, misses, saved: Math.round(savedMs) },
          );
        });
      } catch (error) {
        this.log.error("cache counters not written", { workspace_id: scope.workspaceId, error: (error as Error).message });
      }
    }
  }
}
