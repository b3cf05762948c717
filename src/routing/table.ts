import type { BreakerPolicy, RetryPolicy, TargetKind } from "./model";

/** One upstream deployment, with its secrets resolved (never logged, never returned by any API). */
export type Target = {
  name: string;
  kind: TargetKind;
  /** Without a trailing slash; the dialect's path is appended. */
  baseUrl: string;
  /** Replaces the caller's provider key when set. */
  apiKey: string | undefined;
  headers: Record<string, string>;
  /** "" or "?name=value…", appended to every URL. */
  query: string;
  /** Requested model → this target's name for it. */
  models: Record<string, string>;
  weight: number;
  breaker: BreakerPolicy;
};

/** A target as one route uses it. */
export type RouteTarget = { target: Target; weight: number; model: string | undefined };

export type Route = {
  name: string;
  strategy: "fallback" | "loadbalance";
  targets: RouteTarget[];
  retry: RetryPolicy;
  timeoutMs: number;
  deadlineMs: number;
};

/** The API family a target speaks: the OpenAI kinds serve chat completions and Responses, Anthropic's serves Messages. */
export function speaks(kind: TargetKind): "openai" | "anthropic" {
  return kind === "anthropic" ? "anthropic" : "openai";
}

/** A match with * or ? is a glob over the whole model name; anything else is an exact name or alias. */
export const isGlob = (match: string) => /[*?]/.test(match);

function globPattern(glob: string): RegExp {
  const source = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll("?", ".");
  return new RegExp(`^${source}$`);
}

/**
 * The routes of one routing file, compiled. Exact names and aliases win over globs; globs are
 * tried in file order. A table is immutable: a reload builds a new one, and requests in flight
 * keep the route they were given.
 */
export class RoutingTable {
  readonly #exact = new Map<string, Route>();
  readonly #globs: { pattern: RegExp; route: Route }[] = [];

  constructor(
    readonly targets: readonly Target[],
    readonly routes: readonly { route: Route; match: readonly string[] }[],
    /** A workspace's own routes: its targets are reached only at addresses allowed for tenants (src/egress). */
    readonly tenant = false,
  ) {
    for (const { route, match } of routes) {
      for (const each of match) {
        if (isGlob(each)) this.#globs.push({ pattern: globPattern(each), route });
        else if (!this.#exact.has(each)) this.#exact.set(each, route);
      }
    }
  }

  routeFor(model: string): Route | undefined {
    const exact = this.#exact.get(model);
    if (exact) return exact;
    for (const { pattern, route } of this.#globs) if (pattern.test(model)) return route;
    return undefined;
  }
}
