import { Counter, Registry } from "prom-client";
import { GUARD_CHECKS, type GuardCheck } from "../cache/guard";
import { DatabaseMetrics } from "./database";

/**
 * The response cache's lookups: hits by kind, misses, and the semantic candidates the verifier
 * (src/cache/guard.ts) turned down, by the check that failed; plus the time of its lookup
 * queries. Every series is resolved up front.
 */
export class CacheMetrics {
  readonly hits: Record<"exact" | "semantic", Counter.Internal>;
  readonly misses: Counter;
  readonly #rejections: Record<GuardCheck, Counter.Internal>;
  readonly database: DatabaseMetrics;

  /** Tools that run the cache without a server (eval, bench) give it a registry nobody reads. */
  constructor(registry = new Registry(), database = new DatabaseMetrics(registry)) {
    const hits = new Counter({ name: "sieve_cache_hits_total", help: "Proxied requests answered from the cache, by kind (exact, semantic)", labelNames: ["kind"], registers: [registry] });
    this.hits = { exact: hits.labels("exact"), semantic: hits.labels("semantic") };
    this.misses = new Counter({ name: "sieve_cache_misses_total", help: "Cache lookups that found no usable entry (the request was forwarded)", registers: [registry] });
    const rejections = new Counter({
      name: "sieve_cache_verifier_rejections_total",
      help: "Semantic candidates above the similarity threshold that the verifier turned down, by the check that failed",
      labelNames: ["check"],
      registers: [registry],
    });
    this.#rejections = Object.fromEntries(GUARD_CHECKS.map((check) => [check, rejections.labels(check)])) as Record<GuardCheck, Counter.Internal>;
    for (const child of [this.hits.exact, this.hits.semantic, ...Object.values(this.#rejections)]) child.inc(0);
    this.database = database;
  }

  rejected(check: GuardCheck): void {
    this.#rejections[check].inc();
  }
}
