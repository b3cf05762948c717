import { breakerSchema, REFERENCES, type RoutingDocument, type SecretSource } from "./model";
import { isGlob, RoutingTable, type Route, type Target } from "./table";

export type CompileOptions = {
  /** --upstream-timeout-ms: a route's timeout_ms and deadline_ms when it sets none. */
  timeoutMs: number;
  /** Where `api_key` and header references point: the environment, or the workspace's stored secrets. */
  secrets: SecretSource;
  /** The value of a referenced secret, undefined when there is none. */
  resolve: (name: string) => string | undefined;
  /** A workspace's routes: their addresses are checked when connecting, like its upstream_url. */
  tenant: boolean;
};

const MISSING: Record<SecretSource, (name: string) => string> = {
  env: (name) => `the environment variable ${name} is not set`,
  secret: (name) => `no secret named "${name}" is stored (PUT /api/routing/secrets/${name})`,
};

/**
 * A validated routing document as a RoutingTable: cross-references and secret look-ups zod cannot
 * check. Every problem is reported through `problem`, not just the first.
 */
export function compileRouting(document: RoutingDocument, options: CompileOptions, problem: (path: PropertyKey[], message: string) => void): RoutingTable {
  const secretOf = (raw: string, path: PropertyKey[]): string => {
    const reference = REFERENCES[options.secrets].pattern.exec(raw);
    if (!reference) return raw;
    const value = options.resolve(reference[1]!);
    if (value === undefined) problem(path, MISSING[options.secrets](reference[1]!));
    return value ?? "";
  };
  const breakerDefaults = breakerSchema.parse(document.breaker ?? {});
  const targets = new Map<string, Target>();
  document.targets.forEach((spec, i) => {
    if (targets.has(spec.name)) problem(["targets", i, "name"], `a second target named "${spec.name}"`);
    targets.set(spec.name, {
      name: spec.name,
      kind: spec.kind,
      baseUrl: spec.base_url.replace(/\/+$/, ""),
      apiKey: spec.api_key === undefined ? undefined : secretOf(spec.api_key, ["targets", i, "api_key"]),
      headers: Object.fromEntries(Object.entries(spec.headers ?? {}).map(([name, value]) => [name.toLowerCase(), secretOf(value, ["targets", i, "headers", name])])),
      query: spec.query ? `?${new URLSearchParams(spec.query)}` : "",
      models: spec.models ?? {},
      weight: spec.weight,
      breaker: { ...breakerDefaults, ...spec.breaker },
    });
  });

  const exactMatches = new Map<string, number>();
  const routes = document.routes.map((spec, i) => {
    const match = typeof spec.match === "string" ? [spec.match] : spec.match;
    match.forEach((each, j) => {
      if (isGlob(each)) return;
      const earlier = exactMatches.get(each);
      if (earlier !== undefined) problem(["routes", i, "match", ...(typeof spec.match === "string" ? [] : [j])], `"${each}" is already matched by routes[${earlier}]`);
      exactMatches.set(each, i);
    });
    const routeTargets = spec.targets.flatMap((entry, j) => {
      const { name, weight, model } = typeof entry === "string" ? { name: entry, weight: undefined, model: undefined } : entry;
      const target = targets.get(name);
      if (!target) {
        problem(["routes", i, "targets", j], `no target is named "${name}" (targets: ${[...targets.keys()].join(", ")})`);
        return [];
      }
      return [{ target, weight: weight ?? target.weight, model }];
    });
    const route: Route = {
      name: spec.name ?? match.join(","),
      strategy: spec.strategy,
      targets: routeTargets,
      retry: spec.retry,
      timeoutMs: spec.timeout_ms ?? options.timeoutMs,
      deadlineMs: spec.deadline_ms ?? Math.max(options.timeoutMs, spec.timeout_ms ?? 0),
    };
    return { route, match };
  });
  return new RoutingTable([...targets.values()], routes, options.tenant);
}
