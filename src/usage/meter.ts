import type { Logger } from "../logging/logger";
import type { UsageMetrics } from "../metrics/usage";
import type { Dialect, RequestView, Usage } from "../proxy/dialects/dialect";
import type { RequestOutcome } from "../proxy/evidence-entry";
import type { ProxiedRequest } from "../proxy/request";
import { estimateUsage } from "./estimate";
import type { Admission, LimitKeeper } from "./limits";
import type { PriceBook } from "./prices";

/** What one request used and cost, as its evidence record keeps it. */
export type Metered = {
  usage: Usage | undefined;
  /** The provider gave no usage: counted with a tokenizer (src/usage/estimate.ts). */
  estimated: boolean;
  costUsd: number | null;
  /** A cache hit: what the provider would have charged for the stored answer. */
  savedCostUsd: number | null;
  /** Soft limits passed, comma-separated. */
  limitWarning: string | null;
};

/** What the meter reads of a request: a proxied one, or a pass-through (src/usage/passthrough.ts). */
export type MeteredRequest = Pick<ProxiedRequest, "scope" | "admission"> & { dialect: Pick<Dialect, "provider">; view: Pick<RequestView, "model" | "texts"> };

/**
 * The usage stage, run when a proxied request ends: the provider's token counts (or an estimate
 * when it gave none), their cost, the Prometheus counters, and the request's share of its
 * workspace's and key's token and spend limits. A cache hit costs nothing and records what it saved.
 */
export class UsageMeter {
  constructor(
    private readonly prices: () => PriceBook,
    private readonly metrics: UsageMetrics,
    private readonly limits: LimitKeeper,
    private readonly log: Logger,
  ) {}

  /** Synchronous unless the usage must be estimated (the tokenizer loads on first use). */
  meter(request: MeteredRequest, outcome: RequestOutcome): Metered | Promise<Metered> {
    const limitWarning = request.admission?.warnings.length ? request.admission.warnings.map((w) => w.limit).join(",") : null;
    if (outcome.usage || outcome.cacheStatus === "hit" || outcome.answerText === undefined || outcome.status >= 300) {
      return this.#price(request, outcome, outcome.usage, false, limitWarning);
    }
    const inputs = request.view.texts.map((t) => t.text);
    return estimateUsage(request.view.model, inputs, outcome.answerText).then(
      (usage) => this.#price(request, outcome, usage, true, limitWarning),
      (error: Error) => {
        this.log.warn("usage estimate failed", { error: error.message });
        return this.#price(request, outcome, undefined, false, limitWarning);
      },
    );
  }

  /** A price that cannot be worked out is no reason to fail the request it belongs to: it is logged and left null. */
  #cost(request: MeteredRequest, usage: Usage) {
    try {
      return this.prices().cost(request.dialect.provider, request.view.model, usage);
    } catch (error) {
      this.log.warn("no price for the request", { model: request.view.model, error: (error as Error).message });
      return null;
    }
  }

  #price(request: MeteredRequest, outcome: RequestOutcome, usage: Usage | undefined, estimated: boolean, limitWarning: string | null): Metered {
    const cost = usage ? this.#cost(request, usage) : null;
    const hit = outcome.cacheStatus === "hit";
    const tokens = { input: usage?.prompt_tokens ?? 0, output: usage?.completion_tokens ?? 0, cached: usage?.cached_tokens ?? 0, reasoning: usage?.reasoning_tokens ?? 0 };
    this.metrics.record(cost?.priceName ?? null, tokens, hit ? null : (cost?.usd ?? null), hit ? (cost?.usd ?? 0) : null);
    const subjects = request.admission?.subjects;
    if (!hit && subjects?.length) {
      this.limits.charge(request.scope, subjects, tokens.input + tokens.output, cost?.usd ?? 0).catch((error: Error) => this.log.error("usage counters not updated", { error: error.message }));
    }
    return { usage, estimated, costUsd: hit ? 0 : (cost?.usd ?? null), savedCostUsd: hit ? (cost?.usd ?? null) : null, limitWarning };
  }
}

export type { Admission };
