import { Counter, type Registry } from "prom-client";

/** Methods counted by name; anything else a client invents is "other", so it cannot grow the label set. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Requests a route did not match (404 no such route) share one label instead of their paths. */
const UNMATCHED = "unmatched";

type Child = Counter.Internal;

/**
 * Every HTTP request the app answers, by method, route template and status: the proxy dialects,
 * the pass-through (`/v1/*`), the document and management APIs alike. Route templates
 * (`/api/documents/:id`), never paths, so ids never become label values. Children are created
 * once per combination and then found through nested maps: recording allocates nothing.
 */
export class HttpMetrics {
  readonly #requests: Counter<"method" | "route" | "status">;
  readonly #children = new Map<string, Map<string, Map<number, Child>>>();

  constructor(registry: Registry) {
    this.#requests = new Counter({
      name: "sieve_http_requests_total",
      help: "HTTP requests answered, by method, route template (unmatched: no route) and status",
      labelNames: ["method", "route", "status"],
      registers: [registry],
    });
  }

  record(method: string, route: string | undefined, status: number): void {
    const methodLabel = METHODS.has(method) ? method : "other";
    const routeLabel = route || UNMATCHED;
    let byRoute = this.#children.get(methodLabel);
    if (!byRoute) this.#children.set(methodLabel, (byRoute = new Map()));
    let byStatus = byRoute.get(routeLabel);
    if (!byStatus) byRoute.set(routeLabel, (byStatus = new Map()));
    let child = byStatus.get(status);
    if (!child) byStatus.set(status, (child = this.#requests.labels(methodLabel, routeLabel, String(status))));
    child.inc();
  }
}
