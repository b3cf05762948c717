import ipaddr from "ipaddr.js";

/** Headers a reverse proxy adds: a request carrying one was relayed, whatever its socket address says. */
const RELAY_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip"] as const;

/**
 * Why GET /metrics is refused to this client, or undefined when it may read it. The metrics are
 * the whole instance's (every workspace's traffic summed), so they are operator data: served to
 * loopback clients (a Prometheus agent beside the sidecar), or to anyone with --metrics-public.
 * A request relayed by a proxy on the same host arrives from loopback too, so one with a
 * forwarding header counts as remote: a reverse proxy must not make the endpoint public. The
 * socket address is the only one trusted; forwarding headers can only take access away.
 */
export function metricsRefusal(clientAddress: string | undefined, headers: Headers, servedToAnyone: boolean): string | undefined {
  if (servedToAnyone) return undefined;
  const relayed = RELAY_HEADERS.find((name) => headers.has(name));
  const why = relayed
    ? `this request was relayed by a proxy: it carries ${relayed}`
    : !clientAddress
      ? "the client address is unknown"
      : !isLoopback(clientAddress)
        ? `this request came from ${clientAddress}`
        : undefined;
  return why && `/metrics is served to loopback clients only (${why}); start Sieve with --metrics-public (SIEVE_METRICS_PUBLIC) to serve it to any client`;
}

function isLoopback(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns ::ffff:127.0.0.1 (an IPv4 client on a dual-stack socket) into 127.0.0.1.
  return ipaddr.process(address).range() === "loopback";
}
