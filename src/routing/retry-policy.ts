import type { RetryPolicy } from "./model";

/**
 * What one attempt at a target came to, as the evidence and the metrics name it. Every class but
 * `ok` and `client_error` is a failure of the target: it counts against its breaker and the route
 * may retry it or move on.
 */
export type AttemptOutcome =
  | "ok"
  /** A 4xx other than 408/409/429: the request's own fault, the same anywhere. Relayed, never retried. */
  | "client_error"
  | "rate_limited"
  | "server_error"
  | "timeout"
  | "unreachable"
  /** A 200 whose body is not an answer of the request's API (non-streamed requests only). */
  | "malformed_response"
  /** A non-streamed answer past --max-response-bytes. */
  | "too_large"
  /** Skipped: the target's circuit is open. */
  | "circuit_open"
  /** Skipped: the target speaks the other provider's API and the request has a field it cannot carry. */
  | "untranslatable";

/** 429 and the statuses of a provider or gateway in trouble are worth another try; 400/401/403/404/409/422 never are. */
export function outcomeOfStatus(status: number): AttemptOutcome {
  if (status < 400) return "ok";
  if (status === 429) return "rate_limited";
  if (status === 408 || status >= 500) return "server_error";
  return "client_error";
}


/**
 * How long the provider asked us to wait: OpenAI's `retry-after-ms`, else `Retry-After` in
 * seconds or as an HTTP date. Undefined when it said nothing usable.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms);
  const after = headers.get("retry-after");
  if (after === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(after.trim())) return Number(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before retry number `retry` (1 for the first retry): exponential from backoff_ms,
 * half of it random ("equal jitter", so concurrent clients spread out but never retry at once),
 * capped by max_backoff_ms. A provider's Retry-After replaces it when it asked for longer.
 */
export function backoffMs(policy: RetryPolicy, retry: number, askedMs: number | undefined, random = Math.random): number {
  const exponential = Math.min(policy.max_backoff_ms, policy.backoff_ms * 2 ** (retry - 1));
  const jittered = exponential / 2 + random() * (exponential / 2);
  return askedMs !== undefined ? Math.max(askedMs, jittered) : jittered;
}
