import type { AllowedHosts } from "../egress/allowed-hosts";
import { badRequest } from "../http/errors";
import type { RoutingMetrics } from "../metrics/routing";
import type { ProxiedRequest } from "../proxy/request";
import type { UpstreamStage } from "../proxy/stages";
import { callUpstream, readAnswerText, UpstreamError, type UpstreamAttempt, type UpstreamCall } from "../proxy/upstream";
import type { Breakers } from "./breaker";
import { backoffMs, isFailure, outcomeOfStatus, retryAfterMs, type AttemptOutcome } from "./retry-policy";
import { speaks, type Route, type RouteTarget, type RoutingTable, type Target } from "./table";
import type { WorkspaceRoutes } from "./workspace-routes";

/** Metrics label of a workspace's own targets and routes: their names are a tenant's, so they never become label values. */
const TENANT_LABEL = "(workspace)";

export type RoutedUpstreamDeps = {
  /** The routing file's current table (undefined: no --config). Read once per request. */
  fileTable: () => RoutingTable | undefined;
  /** Each workspace's own routes (PUT /api/routing). */
  workspaceRoutes: WorkspaceRoutes;
  /** The file targets' breakers, by target name. */
  breakers: Breakers;
  /** The workspaces' targets' breakers, by `<workspace>/<target>`. */
  tenantBreakers: Breakers;
  /** The spec's single upstream: requests no route matches, and workspaces with their own upstream_url. */
  direct: UpstreamStage;
  metrics: RoutingMetrics;
  allowedUpstreamHosts: AllowedHosts;
  /** --max-response-bytes, for the non-streamed answers read here. */
  maxResponseBytes: number;
  random?: () => number;
};

/** Request headers that carry provider credentials: a target with its own replaces all of them. */
const CREDENTIAL_HEADERS = ["authorization", "x-api-key", "api-key"];

/**
 * Stage 3 with a routing file: the route matching the requested model sends the request to its
 * targets in order (fallback) or by weight (loadbalance), retrying a failed target with backoff
 * and skipping targets whose circuit is open. Every attempt ends before anything reaches the
 * client, so a retry never repeats bytes the client already has: a stream is relayed only once
 * a target answered it with a success status, and a stream failing after that ends with the
 * dialect's error event, as without routes.
 */
export function routedUpstream(deps: RoutedUpstreamDeps): UpstreamStage {
  return {
    send(request) {
      // The workspace's own routes first; then the operator's, unless the workspace set its own upstream_url.
      const own = deps.workspaceRoutes.tableOf(request.workspace);
      const ownRoute = own?.routeFor(request.view.model);
      if (own && ownRoute) return dispatch(request, ownRoute, own, deps);
      const file = request.upstreamFromWorkspace ? undefined : deps.fileTable();
      const route = file?.routeFor(request.view.model);
      return file && route ? dispatch(request, route, file, deps) : deps.direct.send(request);
    },
  };
}

type Tried =
  | { outcome: "ok" | "client_error"; call: UpstreamCall }
  | { outcome: AttemptOutcome; response: Response; retryAfterMs: number | undefined }
  | { outcome: AttemptOutcome; error: UpstreamError };

async function dispatch(request: ProxiedRequest, route: Route, table: RoutingTable, deps: RoutedUpstreamDeps): Promise<UpstreamCall> {
  const breakers = table.tenant ? deps.tenantBreakers : deps.breakers;
  const breakerKey = (target: Target) => (table.tenant ? `${request.scope.workspaceId}/${target.name}` : target.name);
  const label = (name: string) => (table.tenant ? TENANT_LABEL : name);
  const provider = request.dialect.provider;
  const usable = route.targets.filter((entry) => speaks(entry.target.kind) === provider);
  if (usable.length === 0) {
    const kinds = [...new Set(route.targets.map((entry) => entry.target.kind))].join(", ");
    throw badRequest(`model: "${request.view.model}" is routed by route "${route.name}", whose targets (${kinds}) do not serve ${request.dialect.api}; requests are not translated between providers`);
  }
  const order = route.strategy === "loadbalance" ? weightedOrder(usable, deps.random ?? Math.random) : usable;
  const started = performance.now();
  const deadline = started + route.deadlineMs;
  const attempts: UpstreamAttempt[] = [];
  let lastFailure: Exclude<Tried, { call: UpstreamCall }> | undefined;
  const discardLast = () => {
    if (lastFailure && "response" in lastFailure) void lastFailure.response.body?.cancel().catch(() => {});
  };

  for (const [position, entry] of order.entries()) {
    const { target } = entry;
    const breaker = breakers.for(breakerKey(target), target.breaker);
    if (position > 0 && attempts.length > 0) deps.metrics.fallback(label(route.name));
    let asked: number | undefined;
    for (let retry = 0; retry <= route.retry.attempts; retry++) {
      if (retry > 0) {
        const wait = backoffMs(route.retry, retry, asked, deps.random);
        if (performance.now() + wait >= deadline) break;
        await pause(wait, request.clientSignal);
        if (request.clientSignal.aborted) throw clientGone(attempts);
        deps.metrics.retry(label(target.name));
      }
      if (!breaker.tryAcquire()) {
        attempts.push({ target: target.name, outcome: "circuit_open", status: null, ms: 0 });
        deps.metrics.attempt(label(target.name), "circuit_open");
        break;
      }
      const remaining = deadline - performance.now();
      if (remaining <= 0) {
        breaker.release();
        break;
      }
      const attemptStarted = performance.now();
      const tried = await attempt(request, entry, { timeoutMs: Math.min(route.timeoutMs, remaining), checkAddress: table.tenant, maxBytes: deps.maxResponseBytes }, deps.allowedUpstreamHosts);
      const status = "call" in tried ? tried.call.response.status : "response" in tried ? tried.response.status : null;
      attempts.push({ target: target.name, outcome: tried.outcome, status, ms: Math.round(performance.now() - attemptStarted) });
      deps.metrics.attempt(label(target.name), tried.outcome);
      if ("call" in tried) {
        breaker.success();
        discardLast();
        return { ...tried.call, upstreamMs: performance.now() - started, routed: { target: target.name, attempts, idleTimeoutMs: route.timeoutMs } };
      }
      if (request.clientSignal.aborted) {
        breaker.release();
        throw clientGone(attempts);
      }
      breaker.failure();
      discardLast();
      lastFailure = tried;
      asked = "response" in tried ? tried.retryAfterMs : undefined;
      // A provider that asks for a longer pause than the route allows is left for the next target.
      if (asked !== undefined && asked > route.retry.max_retry_after_ms) break;
    }
    if (performance.now() >= deadline) break;
  }

  if (lastFailure && "response" in lastFailure) {
    // The last provider error is relayed as the provider sent it, as without routes.
    const abort = () => void lastFailure.response.body?.cancel().catch(() => {});
    return { response: lastFailure.response, upstreamMs: performance.now() - started, abort, routed: { target: attempts.at(-1)!.target, attempts, idleTimeoutMs: route.timeoutMs } };
  }
  const error =
    lastFailure && "error" in lastFailure
      ? lastFailure.error
      : attempts.length > 0 && attempts.every((a) => a.outcome === "circuit_open")
        ? new UpstreamError("unavailable", `every target of route "${route.name}" is failing and out of rotation for now (circuit open)`)
        : new UpstreamError("timeout", `route "${route.name}" found no answer within its ${route.deadlineMs} ms deadline`);
  error.attempts = attempts;
  throw error;
}

/** One request to one target: its headers, or for a non-streamed request its whole body, within `timeoutMs`. */
async function attempt(request: ProxiedRequest, entry: RouteTarget, limits: { timeoutMs: number; checkAddress: boolean; maxBytes: number }, allowed: AllowedHosts): Promise<Tried> {
  const { target } = entry;
  const { timeoutMs, checkAddress } = limits;
  const started = performance.now();
  let call: UpstreamCall;
  try {
    call = await callUpstream(
      { url: target.baseUrl + request.dialect.upstreamPath + target.query, method: "POST", headers: targetHeaders(request, target), body: bodyFor(request, entry), clientSignal: request.clientSignal, checkAddress },
      timeoutMs,
      allowed,
    );
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    return { outcome: error.kind === "timeout" ? "timeout" : "unreachable", error };
  }
  const { response } = call;
  const outcome = outcomeOfStatus(response.status);
  if (outcome === "client_error") return { outcome, call };
  if (outcome !== "ok") return { outcome, response, retryAfterMs: retryAfterMs(response.headers) };
  if (request.stream) return { outcome, call };

  // A non-streamed answer is read here, so a body that hangs, breaks off or is not an answer can still be retried.
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    call.abort("timeout");
  }, Math.max(1, timeoutMs - (performance.now() - started)));
  let text: string;
  try {
    text = await readAnswerText(response, limits.maxBytes);
  } catch (error) {
    if (error instanceof UpstreamError) return { outcome: "too_large", error };
    return timedOut
      ? { outcome: "timeout", error: new UpstreamError("timeout", `the provider did not send its answer within ${timeoutMs} ms`) }
      : { outcome: "unreachable", error: new UpstreamError("unreachable", "the provider response broke off") };
  } finally {
    clearTimeout(timer);
  }
  const rebuilt = () => new Response(text, { status: response.status, headers: response.headers });
  if (!isAnswer(request, text)) return { outcome: "malformed_response", response: rebuilt(), retryAfterMs: undefined };
  return { outcome, call: { ...call, response: rebuilt() } };
}

function isAnswer(request: ProxiedRequest, text: string): boolean {
  try {
    return request.dialect.answer(JSON.parse(text)) !== undefined;
  } catch {
    return false;
  }
}

/** The caller's headers, with the target's own credentials and headers in place of the caller's where it has them. */
function targetHeaders(request: ProxiedRequest, target: Target): Record<string, string> {
  const headers = { ...request.forwardHeaders };
  if (target.apiKey !== undefined || CREDENTIAL_HEADERS.some((name) => name in target.headers)) {
    for (const name of CREDENTIAL_HEADERS) delete headers[name];
    if (target.apiKey !== undefined) {
      if (target.kind === "anthropic") headers["x-api-key"] = target.apiKey;
      else headers.authorization = `Bearer ${target.apiKey}`;
    }
  }
  return Object.assign(headers, target.headers);
}

/** The body as the client sent it, unless this target knows the requested model by another name. */
function bodyFor(request: ProxiedRequest, entry: RouteTarget): string {
  const model = entry.model ?? entry.target.models[request.view.model];
  if (model === undefined || model === request.view.model) return request.rawBody;
  return JSON.stringify({ ...JSON.parse(request.rawBody), model });
}

/** Weighted random order without replacement (Efraimidis–Spirakis): the first is picked by weight, the rest follow as fallbacks. */
function weightedOrder(entries: RouteTarget[], random: () => number): RouteTarget[] {
  return entries
    .map((entry) => ({ entry, key: Math.pow(random(), 1 / entry.weight) }))
    .sort((a, b) => b.key - a.key)
    .map(({ entry }) => entry);
}

function clientGone(attempts: UpstreamAttempt[]): UpstreamError {
  const error = new UpstreamError("unreachable", "the client disconnected");
  error.attempts = attempts;
  return error;
}

/** Waits `ms`, or less if the client leaves. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
