import { Gauge, Registry } from "prom-client";
import { CacheMetrics } from "./cache";
import { DatabaseMetrics } from "./database";
import { DocumentMetrics, type DocumentWork } from "./documents";
import { DataProtectionMetrics } from "./data-protection";
import { HttpMetrics } from "./http";
import { ProcessMetrics } from "./process";
import { ProxyMetrics } from "./proxy";
import { RoutingMetrics } from "./routing";
import { UsageMetrics } from "./usage";
import type { Breakers } from "../routing/breaker";

export type MetricsSources = {
  /** Evidence records waiting for the background writer. */
  evidenceQueueLength: () => number;
  /** The process's inference pool metrics, once a pool runs. */
  inference: () => Registry | undefined;
  /** SQLite: what the cache's in-memory sign-bit index holds (src/db/sign-bit-index.ts); absent on PostgreSQL. */
  cacheIndex?: () => { partitions: number; entries: number };
  /** The routed targets' circuit breakers (src/routing). */
  breakers: Breakers;
  /** The document job queue and uploads in progress (src/documents/admission.ts). */
  documents: () => DocumentWork;
};

/**
 * One server's metrics: a prom-client registry and the recorders the stages call. No workspace,
 * key, prompt or path is ever a label value: labels are route templates, dialects, statuses,
 * families, checks and operations, all from fixed sets, so the series count stays bounded
 * whatever the traffic.
 */
export class Metrics {
  readonly #registry = new Registry();
  readonly #sources: MetricsSources;
  readonly http = new HttpMetrics(this.#registry);
  readonly proxy = new ProxyMetrics(this.#registry);
  readonly dataProtection = new DataProtectionMetrics(this.#registry);
  readonly database = new DatabaseMetrics(this.#registry);
  readonly cache = new CacheMetrics(this.#registry, this.database);
  readonly #process = new ProcessMetrics(this.#registry);
  readonly routing: RoutingMetrics;
  readonly documents: DocumentMetrics;
  readonly usage = new UsageMetrics(this.#registry);

  constructor(sources: MetricsSources) {
    this.#sources = sources;
    this.routing = new RoutingMetrics(this.#registry, () => sources.breakers.entries());
    this.documents = new DocumentMetrics(this.#registry, sources.documents);
    const evidenceQueue: Gauge = new Gauge({
      name: "sieve_evidence_queue_length",
      help: "Evidence records queued for the background writer",
      registers: [this.#registry],
      collect: () => evidenceQueue.set(sources.evidenceQueueLength()),
    });
    const { cacheIndex } = sources;
    if (cacheIndex) {
      for (const [name, field, help] of [
        ["sieve_cache_index_entries", "entries", "Cache entries whose sign bits the semantic search holds in memory (SQLite)"],
        ["sieve_cache_index_partitions", "partitions", "Workspace scopes whose sign bits the semantic search holds in memory (SQLite)"],
      ] as const) {
        const gauge: Gauge = new Gauge({ name, help, registers: [this.#registry], collect: () => gauge.set(cacheIndex()[field]) });
      }
    }
  }

  readonly contentType = this.#registry.contentType;

  /** The Prometheus text exposition of this server's metrics and the inference pool's. */
  exposition(): Promise<string> {
    const inference = this.#sources.inference();
    return (inference ? Registry.merge([this.#registry, inference]) : this.#registry).metrics();
  }

  close(): void {
    this.#process.close();
  }
}
