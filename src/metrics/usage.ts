import { Counter, type Registry } from "prom-client";

/** The model label is the price's name (the catalogue's model id or the operator's override), so only names they know become series. */
const UNPRICED = "unpriced";

/**
 * Tokens and money by model (no workspace or key labels): what the providers billed, and what
 * the cache saved. A model without a price is counted under model="unpriced", so a client
 * cannot grow the series by inventing model names.
 */
export class UsageMetrics {
  readonly #tokens: Counter<"model" | "kind">;
  readonly #cost: Counter<"model">;
  readonly #saved: Counter<"model">;

  constructor(registry: Registry) {
    this.#tokens = new Counter({
      name: "sieve_tokens_total",
      help: "Tokens of proxied requests forwarded to a provider, by model and kind (input, output; cached and reasoning are parts of them)",
      labelNames: ["model", "kind"],
      registers: [registry],
    });
    this.#cost = new Counter({ name: "sieve_cost_usd_total", help: "Cost of proxied requests in US dollars at catalogue or operator prices, by model", labelNames: ["model"], registers: [registry] });
    this.#saved = new Counter({ name: "sieve_cache_saved_cost_usd_total", help: "Cost the cache saved (what its hits would have cost at the provider), by model", labelNames: ["model"], registers: [registry] });
  }

  record(priceName: string | null, tokens: { input: number; output: number; cached: number; reasoning: number }, costUsd: number | null, savedUsd: number | null): void {
    const label = priceName ?? UNPRICED;
    if (savedUsd !== null) {
      this.#saved.labels(label).inc(savedUsd);
      return;
    }
    for (const kind of ["input", "output", "cached", "reasoning"] as const) if (tokens[kind] > 0) this.#tokens.labels(label, kind).inc(tokens[kind]);
    if (costUsd !== null) this.#cost.labels(label).inc(costUsd);
  }
}
