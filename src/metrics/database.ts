import { Histogram, type Registry } from "prom-client";

/** Local SQLite answers in well under a millisecond; a database server over the network takes longer. */
const DATABASE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export type DatabaseOperation = "cache_exact_lookup" | "cache_semantic_lookup" | "evidence_write";

/**
 * Database latency, timed around whole calls at the places that make them (the cache's two
 * lookup queries, one evidence batch write), never inside query code: what a request or the
 * background writer waits for, whichever engine answers.
 */
export class DatabaseMetrics {
  readonly #seconds: Record<DatabaseOperation, Histogram.Internal<string>>;

  constructor(registry: Registry) {
    const seconds = new Histogram({
      name: "sieve_database_seconds",
      help: "Time of database calls by operation (cache_exact_lookup, cache_semantic_lookup, evidence_write: one batch)",
      labelNames: ["operation"],
      buckets: DATABASE_BUCKETS,
      registers: [registry],
    });
    const operations: DatabaseOperation[] = ["cache_exact_lookup", "cache_semantic_lookup", "evidence_write"];
    this.#seconds = Object.fromEntries(operations.map((operation) => [operation, seconds.labels(operation)])) as Record<DatabaseOperation, Histogram.Internal<string>>;
  }

  /** Runs `call` and records its time; a promise is timed until it settles. */
  time<T>(operation: DatabaseOperation, call: () => T): T {
    const timer = this.#seconds[operation];
    const started = performance.now();
    const observe = () => timer.observe((performance.now() - started) / 1000);
    let result: T;
    try {
      result = call();
    } catch (error) {
      observe();
      throw error;
    }
    if (result instanceof Promise) return result.finally(observe) as T;
    observe();
    return result;
  }
}
