import type { Statement } from "bun:sqlite";
import { getTableColumns } from "drizzle-orm";
import type { Db } from "../db/connection";
import type { Logger } from "../logging/logger";
import type { DatabaseMetrics } from "../metrics/database";
import { evidence } from "./schema";

export type EvidenceRecord = typeof evidence.$inferInsert;

const COLUMNS = Object.entries(getTableColumns(evidence));

/**
 * One prepared INSERT built from the drizzle table (names, defaults and value mapping stay in
 * sync with schema.ts); building a drizzle query per record was measurable at hundreds of rps.
 */
function prepareInsert(db: Db): (row: EvidenceRecord) => void {
  const statement: Statement = db.$client.prepare(
    `INSERT OR IGNORE INTO evidence (${COLUMNS.map(([, column]) => column.name).join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")})`,
  );
  return (row) => {
    const values = COLUMNS.map(([key, column]) => {
      const value = (row as Record<string, unknown>)[key] ?? column.defaultFn?.();
      return value === undefined || value === null ? null : (column.mapToDriverValue(value) as string | number);
    });
    statement.run(...values);
  };
}

/**
 * Evidence is written off the request path: records are queued in memory and inserted in one
 * transaction per batch every `intervalMs`. A hard crash loses at most one interval of records;
 * `close()` (graceful shutdown) writes everything still queued.
 */
export class EvidenceWriter {
  #queue: EvidenceRecord[] = [];
  #timer: Timer | undefined;
  #closed = false;
  readonly #insert: (row: EvidenceRecord) => void;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly intervalMs: number,
    /** Times each batch (sieve_database_seconds{operation="evidence_write"}). */
    private readonly database: DatabaseMetrics,
    private readonly maxBatch = 500,
  ) {
    this.#insert = prepareInsert(db);
  }

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

  /** Records queued and not yet written (sieve_evidence_queue_length). */
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
      this.database.time("evidence_write", () =>
        this.db.$client.transaction(() => {
          for (const row of batch) this.#insert(row);
        })(),
      );
    } catch (error) {
      this.log.error("evidence batch failed; re-queued", { error, records: batch.length });
      this.#queue.unshift(...batch);
      this.#timer ??= setTimeout(() => this.flush(), this.intervalMs * 5);
    }
  }
}
