import type { Storage } from "../db/connection";
import type { Logger } from "../logging/logger";
import type { DatabaseMetrics } from "../metrics/database";
import { evidence } from "./schema";

export type EvidenceRecord = typeof evidence.$inferInsert;

/**
 * Evidence is written off the request path: records are queued in memory and written as one
 * multi-row INSERT per batch every `intervalMs` (or at `maxBatch` records). A hard crash loses the
 * records queued since the last write; `close()` (graceful shutdown) writes everything still
 * queued and waits for the writes in flight.
 *
 * The interval is kept in wall time as far as one event loop allows. A timer cannot fire while
 * the loop is busy: with two 40 MB request bodies at a time the loop was held for 0.25–1.4 s at a
 * stretch (hashing, serialising and caching the body), and the flush timer fired as late (issue
 * #56, defect 6). So `record()` also checks the age of the oldest queued record on a
 * monotonic clock and, once it is `intervalMs` old, writes the batch right away, unless an SQLite
 * transaction is open on the connection (the rows would join it: see sqlite.ts), then on the next
 * turn. What remains is the time the loop is held without a request finishing (README, "Evidence
 * log", states the measured bound).
 */
export class EvidenceWriter {
  #queue: EvidenceRecord[] = [];
  #timer: Timer | undefined;
  /** performance.now() when the oldest queued record was queued (undefined: nothing queued). */
  #oldestAt: number | undefined;
  /** After a failed write, no early write before this time (the timer's retry, 5 intervals later, stands). */
  #retryAt = 0;
  #closed = false;
  readonly #writing = new Set<Promise<void>>();

  constructor(
    private readonly storage: Storage,
    private readonly log: Logger,
    private readonly intervalMs: number,
    /** Times each batch (sieve_database_seconds{operation="evidence_write"}). */
    private readonly database: DatabaseMetrics,
    // 28 columns a row: 500 rows stay within SQLite's 32766 and PostgreSQL's 65535 bound parameters.
    private readonly maxBatch = 500,
  ) {}

  record(entry: EvidenceRecord): void {
    if (this.#closed) {
      // Requests that finish during shutdown, after the final flush, are still written.
      this.#write([entry]);
      return;
    }
    const now = performance.now();
    this.#oldestAt ??= now;
    this.#queue.push(entry);
    if (now - this.#oldestAt >= this.intervalMs && now >= this.#retryAt) {
      // The timer is late (the event loop was held): write now, in wall time.
      if (!this.#transactionOpen()) {
        void this.flush();
        return;
      }
    } else if (this.#queue.length < this.maxBatch) {
      this.#timer ??= setTimeout(() => this.flush(), this.intervalMs);
      return;
    }
    // A full (or overdue) batch is written on the next turn of the event loop, never from inside
    // another request's open SQLite transaction (the rows would join it, see sqlite.ts).
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.flush(), 0);
  }

  /** An SQLite transaction open on the one connection (PostgreSQL writes on a connection of their own). */
  #transactionOpen(): boolean {
    const sqlite = (this.storage as { sqlite?: { inTransaction?: boolean } }).sqlite;
    return this.storage.dialect === "sqlite" && sqlite?.inTransaction !== false;
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
      this.#oldestAt = undefined;
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
      await this.database.time("evidence_write", () => this.storage.insertIgnoring(evidence, batch));
    } catch (error) {
      this.log.error("evidence batch failed; re-queued", { error, records: batch.length });
      this.#queue.unshift(...batch);
      this.#oldestAt = performance.now();
      this.#retryAt = this.#oldestAt + this.intervalMs * 5;
      // Retried later (the database may be back by then); a shutdown's final flush tries once more.
      if (!this.#closed) this.#timer ??= setTimeout(() => this.flush(), this.intervalMs * 5);
    }
  }
}
