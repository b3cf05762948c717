import { Counter, Histogram, type Registry } from "prom-client";
import { BUILTIN_FAMILIES } from "../firewall/model";
import { UNSCORED_LANGUAGE } from "../firewall/scan";
import type { FirewallAction, FirewallVerdict } from "../proxy/stages";

/** Seconds Sieve adds to a request: most are a few milliseconds. */
const OVERHEAD_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Seconds at the provider: up to the default --upstream-timeout-ms. */
const UPSTREAM_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

const CACHE_STATUSES = ["hit", "miss", "skip"] as const;
const ACTIONS: FirewallAction[] = ["allow", "log", "warn", "block"];
const SIDES = ["input", "output"] as const;
/**
 * Family label values: the built-in families, texts no vocabulary could score, "none" for an
 * allow, and "custom" for every family a workspace named itself (its names stay out of the
 * metrics, and cannot grow the label set).
 */
const FAMILIES = [...BUILTIN_FAMILIES, UNSCORED_LANGUAGE, "none", "custom"];

/** What the pipeline knows when a proxied request ends: the numbers of its evidence record. */
export type ProxyOutcome = {
  status: number;
  cacheStatus: (typeof CACHE_STATUSES)[number];
  /** Input verdict first, then the output verdict when the answer was checked. */
  verdicts: readonly FirewallVerdict[];
  overheadMs: number;
  upstreamMs: number;
};

type DialectChildren = {
  requests: Map<number, Counter.Internal>;
  overhead: Record<ProxyOutcome["cacheStatus"], Histogram.Internal<string>>;
  upstream: Histogram.Internal<string>;
};

/** Channel label: where the deciding window came from on the input side (user or data), "assistant" on the output side. */
const CHANNELS = { input: ["user", "data"], output: ["assistant"] } as const;
type VerdictChildren = Record<(typeof SIDES)[number], Record<string, Record<FirewallAction, Map<string, Counter.Internal>>>>;

/**
 * The proxy's requests by dialect and status, the overhead and provider latency histograms, and
 * the firewall's verdicts. Fed once per request from the same numbers as the X-Service-* latency
 * headers and the evidence record (nothing is timed twice). Children are resolved when a dialect
 * is first seen, so a request costs a few map lookups and increments.
 */
export class ProxyMetrics {
  readonly #requests: Counter<"dialect" | "status">;
  readonly #overhead: Histogram<"dialect" | "cache">;
  readonly #upstream: Histogram<"dialect">;
  readonly #dialects = new Map<string, DialectChildren>();
  readonly #verdicts: VerdictChildren;

  constructor(registry: Registry) {
    this.#requests = new Counter({
      name: "sieve_proxy_requests_total",
      help: "Proxied provider requests by API dialect (openai_chat, openai_responses, anthropic_messages, passthrough) and the status the client got",
      labelNames: ["dialect", "status"],
      registers: [registry],
    });
    this.#overhead = new Histogram({
      name: "sieve_proxy_overhead_seconds",
      help: "Time Sieve added to a proxied request (X-Service-Latency-Ms), by dialect and cache outcome (hit, miss, skip)",
      labelNames: ["dialect", "cache"],
      buckets: OVERHEAD_BUCKETS,
      registers: [registry],
    });
    this.#upstream = new Histogram({
      name: "sieve_proxy_upstream_seconds",
      help: "Time spent at the provider (X-Service-Upstream-Latency-Ms) by dialect, for requests that were forwarded",
      labelNames: ["dialect"],
      buckets: UPSTREAM_BUCKETS,
      registers: [registry],
    });
    const verdicts = new Counter({
      name: "sieve_firewall_verdicts_total",
      help: "Firewall verdicts on proxied requests by side (input, output), channel of the deciding window (user, data; assistant on the output side), action and family (built-in, unscored_language, custom, none)",
      labelNames: ["side", "channel", "action", "family"],
      registers: [registry],
    });
    this.#verdicts = Object.fromEntries(
      SIDES.map((side) => [
        side,
        Object.fromEntries(
          CHANNELS[side].map((channel) => [channel, Object.fromEntries(ACTIONS.map((action) => [action, new Map(FAMILIES.map((family) => [family, verdicts.labels(side, channel, action, family)]))]))]),
        ),
      ]),
    ) as VerdictChildren;
  }

  /** One proxied request ended (`dialect` is a Dialect's name, or "passthrough"). */
  record(dialect: string, outcome: ProxyOutcome): void {
    const children = this.#dialect(dialect);
    let requests = children.requests.get(outcome.status);
    if (!requests) children.requests.set(outcome.status, (requests = this.#requests.labels(dialect, String(outcome.status))));
    requests.inc();
    children.overhead[outcome.cacheStatus].observe(outcome.overheadMs / 1000);
    // A request answered by Sieve itself (blocked, cache hit, refused) never reached the provider.
    if (outcome.upstreamMs > 0) children.upstream.observe(outcome.upstreamMs / 1000);
    for (let i = 0; i < outcome.verdicts.length && i < SIDES.length; i++) {
      const { action, family, channel } = outcome.verdicts[i]!;
      const side = SIDES[i]!;
      const byFamily = this.#verdicts[side][side === "input" ? (channel ?? "user") : "assistant"]![action];
      (byFamily.get(family ?? "none") ?? byFamily.get("custom")!).inc();
    }
  }

  #dialect(dialect: string): DialectChildren {
    let children = this.#dialects.get(dialect);
    if (!children) {
      children = {
        requests: new Map(),
        overhead: Object.fromEntries(CACHE_STATUSES.map((cache) => [cache, this.#overhead.labels(dialect, cache)])) as DialectChildren["overhead"],
        upstream: this.#upstream.labels(dialect),
      };
      this.#dialects.set(dialect, children);
    }
    return children;
  }
}
