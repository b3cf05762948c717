import type { Db } from "../db/connection";
import type { Logger } from "../logging/logger";
import { evidence } from "./schema";

export type EvidenceRecord = typeof evidence.$inferInsert;

/**
 * Evidence is written off the request path: records are queued in memory and inserted in one
 * transaction per batch every `intervalMs`. A hard crash loses at most one interval of records;
 * `close()` (graceful shutdown) writes everything still queued.
 */
export class EvidenceWriter {
  #queue: EvidenceRecord[] = [];
  #timer: Timer | undefined;
  #closed = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly intervalMs: number,
    private readonly maxBatch = 500,
  ) {}

  record(entry: EvidenceRecord): void {
    if (this.#closed) {
      // Requests that finish during shutdown, after the final flush, are still written.
      this.#write([entry]);
      return;
    }
    this.#queue.push(entry);
    if (this.#queue.length >= this.maxBatch) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  get pending(): number {
    return this.#queue.length;
  }

  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#queue.length === 0) return;
    const batch = this.#queue;
    this.#queue = [];
    this.#write(batch);
  }

  close(): void {
    this.flush();
    this.#closed = true;
  }

  #write(batch: EvidenceRecord[]) {
    try {
      this.db.transaction((tx) => {
        for (const row of batch) tx.insert(evidence).values(row).onConflictDoNothing().run();
      });
    } catch (error) {
      this.log.error("evidence batch failed; re-queued", { error, records: batch.length });
      this.#queue.unshift(...batch);
      this.#timer ??= setTimeout(() => this.flush(), this.intervalMs * 5);
    }
  }
}
