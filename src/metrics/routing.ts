import { Counter, Gauge, type Registry } from "prom-client";
import type { BreakerState } from "../routing/breaker";
import type { AttemptOutcome } from "../routing/retry-policy";

const BREAKER_STATES: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

/**
 * The routing file's attempts, retries, fallbacks and circuit breakers. Target and route names
 * come from the operator's routing file (a bounded set), never from a request.
 */
export class RoutingMetrics {
  readonly #attempts: Counter<"target" | "outcome">;
  readonly #retries: Counter<"target">;
  readonly #fallbacks: Counter<"route">;

  constructor(registry: Registry, breakers: () => Iterable<[string, { state: BreakerState }]>) {
    this.#attempts = new Counter({
      name: "sieve_upstream_attempts_total",
      help: "Attempts at routed targets by outcome (ok, client_error, rate_limited, server_error, timeout, unreachable, malformed_response, circuit_open)",
      labelNames: ["target", "outcome"],
      registers: [registry],
    });
    this.#retries = new Counter({
      name: "sieve_upstream_retries_total",
      help: "Attempts that retried a target after it failed",
      labelNames: ["target"],
      registers: [registry],
    });
    this.#fallbacks = new Counter({
      name: "sieve_upstream_fallbacks_total",
      help: "Times a route moved on from a failing target to its next one",
      labelNames: ["route"],
      registers: [registry],
    });
    const state: Gauge<"target"> = new Gauge({
      name: "sieve_upstream_breaker_state",
      help: "Circuit breaker of each routed target on this instance: 0 closed, 1 half-open (a probe may try it), 2 open",
      labelNames: ["target"],
      registers: [registry],
      collect: () => {
        state.reset();
        for (const [target, breaker] of breakers()) state.set({ target }, BREAKER_STATES[breaker.state]);
      },
    });
  }

  attempt(target: string, outcome: AttemptOutcome): void {
    this.#attempts.inc({ target, outcome });
  }

  retry(target: string): void {
    this.#retries.inc({ target });
  }

  fallback(route: string): void {
    this.#fallbacks.inc({ route });
  }
}
