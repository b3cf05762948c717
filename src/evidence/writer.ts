import type { Storage } from "../db/connection";
import type { Logger } from "../logging/logger";
import type { DatabaseMetrics } from "../metrics/database";
import { evidence } from "./schema";

export type EvidenceRecord = typeof evidence.$inferInsert;

/**
 * Evidence is written off the request path: records are queued in memory and written as one
 * multi-row INSERT per batch every `intervalMs` (or at `maxBatch` records). A hard crash loses at
 * most one interval of records; `close()` (graceful shutdown) writes everything still queued and
 * waits for the writes in flight.
 */
export class EvidenceWriter {
  #queue: EvidenceRecord[] = [];
  #timer: Timer | undefined;
  #closed = false;
  readonly #writing = new Set<Promise<void>>();

  constructor(
    private readonly storage: Storage,
    private readonly log: Logger,
    private readonly intervalMs: number,
    /** Times each batch (sieve_database_seconds{operation="evidence_write"}). */
    private readonly database: DatabaseMetrics,
    // 22 columns a row: 500 rows stay within SQLite's 32766 and PostgreSQL's 65535 bound parameters.
    private readonly maxBatch = 500,
  ) {}

  record(entry: EvidenceRecord): void {
    if (this.#closed) {
      // Requests that finish during shutdown, after the final flush, are still written.
      this.#write([entry]);
      return;
    }
    this.#queue.push(entry);
    if (this.#queue.length < this.maxBatch) {
      this.#timer ??= setTimeout(() => this.flush(), this.intervalMs);
      return;
    }
    // A full batch is written on the next turn of the event loop, never from inside what the
    // caller is doing (on SQLite that may be another request's open transaction, see sqlite.ts).
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.flush(), 0);
  }

  /** Records queued and not yet written (sieve_evidence_queue_length). */
  get pending(): number {
    return this.#queue.length;
  }

  /** Starts writing what is queued; resolves when every write in flight has finished. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      this.#write(batch);
    }
    return Promise.all(this.#writing).then(() => {});
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  #write(batch: EvidenceRecord[]): void {
    const writing = this.#insert(batch).finally(() => this.#writing.delete(writing));
    this.#writing.add(writing);
  }

  async #insert(batch: EvidenceRecord[]): Promise<void> {
    try {
      await this.database.time("evidence_write", async () => {
        for (let start = 0; start < batch.length; start += this.maxBatch) {
          await this.storage.db.insert(evidence).values(batch.slice(start, start + this.maxBatch)).onConflictDoNothing();
        }
      });
    } catch (error) {
      this.log.error("evidence batch failed; re-queued", { error, records: batch.length });
      this.#queue.unshift(...batch);
      // Retried later (the database may be back by then); a shutdown's final flush tries once more.
      if (!this.#closed) this.#timer ??= setTimeout(() => this.flush(), this.intervalMs * 5);
    }
  }
}
