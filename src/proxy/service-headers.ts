export type CacheStatus = "hit" | "miss";

/** Spec §4.4 headers, plus the request id. Values are whole milliseconds ≥ 0. */
export function serviceHeaders(opts: {
  requestId: string;
  cache: CacheStatus;
  receivedAt: number;
  upstreamMs: number;
  extra?: Record<string, string>;
}): Record<string, string> {
  const total = performance.now() - opts.receivedAt;
  const upstream = Math.max(0, Math.round(opts.upstreamMs));
  return {
    "x-service-cache": opts.cache,
    "x-service-latency-ms": String(Math.max(0, Math.round(total - opts.upstreamMs))),
    "x-service-upstream-latency-ms": String(upstream),
    "x-service-request-id": opts.requestId,
    ...opts.extra,
  };
}

export function firewallHeader(action: string, family: string | null): Record<string, string> {
  return action === "warn" ? { "x-service-firewall": `warn; family=${family ?? "unknown"}` } : {};
}

/**
 * A block's family and reason as headers: the spec's 403 body (§2.9) has no member the `openai`
 * SDK prints, but its errors expose the response headers. Header values are printable ASCII only.
 */
export function blockedHeaders(family: string | null, reason: string | null): Record<string, string> {
  return {
    "x-service-firewall": `block; family=${family ?? "unknown"}`,
    "x-service-firewall-reason": (reason ?? "blocked").replace(/[^\x20-\x7e]/g, "?").slice(0, 500),
  };
}
