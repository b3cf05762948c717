import type { AllowedHosts } from "../egress/allowed-hosts";
import { badRequest, HttpError } from "../http/errors";
import type { RoutingMetrics } from "../metrics/routing";
import type { ProxiedRequest } from "../proxy/request";
import type { UpstreamStage } from "../proxy/stages";
import { callUpstream, readAnswerText, UpstreamError, type UpstreamAttempt, type UpstreamCall } from "../proxy/upstream";
import type { Breakers } from "./breaker";
import { backoffMs, outcomeOfStatus, retryAfterMs, type AttemptOutcome } from "./retry-policy";
import { speaks, type Route, type RouteTarget, type RoutingTable, type Target } from "./table";
import type { WorkspaceRoutes } from "./workspace-routes";
import { newTranslation, type Translation } from "./translate";

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
  /** --max-sse-event-bytes, for the streams translated here. */
  maxSseEventBytes: number;
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
  const usable = route.targets.filter((entry) => canServe(request, entry.target));
  if (usable.length === 0) {
    const kinds = [...new Set(route.targets.map((entry) => entry.target.kind))].join(", ");
    throw badRequest(
      `model: "${request.view.model}" is routed by route "${route.name}", whose targets (${kinds}) cannot serve ${request.dialect.api}: ` +
        (request.dialect.name === "openai_responses" ? "the Responses API is not translated to other providers" : "a target of the other provider family needs its own api_key to be translated to"),
    );
  }
  const order = route.strategy === "loadbalance" ? weightedOrder(usable, deps.random ?? Math.random) : usable;
  const started = performance.now();
  const deadline = started + route.deadlineMs;
  const attempts: UpstreamAttempt[] = [];
  let lastFailure: Exclude<Tried, { call: UpstreamCall }> | undefined;
  let lastFailedTarget = "";
  /** Why the last target that could not take this request's fields refused it (400 naming the field). */
  let untranslatable: HttpError | undefined;
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
      let wire: Wire;
      try {
        wire = wireFor(request, entry, deps.maxSseEventBytes);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        untranslatable = error;
        attempts.push({ target: target.name, outcome: "untranslatable", status: null, ms: 0 });
        deps.metrics.attempt(label(target.name), "untranslatable");
        break;
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
      const tried = await attempt(request, entry, wire, { timeoutMs: Math.min(route.timeoutMs, remaining), checkAddress: table.tenant, maxBytes: deps.maxResponseBytes }, deps.allowedUpstreamHosts);
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
      lastFailedTarget = target.name;
      asked = "response" in tried ? tried.retryAfterMs : undefined;
      // A provider that asks for a longer pause than the route allows is left for the next target.
      if (asked !== undefined && asked > route.retry.max_retry_after_ms) break;
    }
    if (performance.now() >= deadline) break;
  }

  // Only targets of the other family were left, and they cannot carry one of the request's fields.
  if (untranslatable && attempts.at(-1)?.outcome === "untranslatable") {
    discardLast();
    throw untranslatable;
  }
  if (lastFailure && "response" in lastFailure) {
    // The last provider error is relayed as the provider sent it (in the client's API), as without routes.
    const abort = () => void lastFailure.response.body?.cancel().catch(() => {});
    return { response: lastFailure.response, upstreamMs: performance.now() - started, abort, routed: { target: lastFailedTarget, attempts, idleTimeoutMs: route.timeoutMs } };
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

/** How one target is spoken to for this request: in the client's own API, or through a translation. */
type Wire = { path: string; headers: Record<string, string>; body: string; translation: Translation | undefined; maxEventChars: number };

/** A target serves its own API family, and the other one through a translation when it has credentials of its own (the caller's are for another provider). */
function canServe(request: ProxiedRequest, target: Target): boolean {
  if (speaks(target.kind) === request.dialect.provider) return true;
  return ownsCredentials(target) && newTranslation(request.dialect.name, speaks(target.kind)) !== undefined;
}

/** The request for `entry`'s target; throws HttpError 400 naming a field the target's API cannot carry. */
function wireFor(request: ProxiedRequest, entry: RouteTarget, maxEventChars: number): Wire {
  const { target } = entry;
  const model = entry.model ?? target.models[request.view.model] ?? request.view.model;
  const translation = speaks(target.kind) === request.dialect.provider ? undefined : newTranslation(request.dialect.name, speaks(target.kind))!;
  if (!translation) return { path: request.dialect.upstreamPath, headers: targetHeaders(request.forwardHeaders, target), body: bodyFor(request, model), translation, maxEventChars };
  // Only neutral headers cross over: the client's provider-specific ones (anthropic-beta, openai-project…) mean nothing there.
  const neutral = Object.fromEntries(Object.entries(request.forwardHeaders).filter(([name]) => ["content-type", "accept", "user-agent"].includes(name)));
  return { path: translation.path, headers: { ...targetHeaders(neutral, target), ...translation.extraHeaders }, body: translation.request(JSON.parse(request.rawBody), model), translation, maxEventChars };
}

/** A translated target's error body, in the client's API (read whole: provider error bodies are small, and bounded here). */
const MAX_ERROR_BODY_BYTES = 1024 * 1024;

/** One request to one target: its headers, or for a non-streamed request its whole body, within `timeoutMs`. */
async function attempt(request: ProxiedRequest, entry: RouteTarget, wire: Wire, limits: { timeoutMs: number; checkAddress: boolean; maxBytes: number }, allowed: AllowedHosts): Promise<Tried> {
  const { target } = entry;
  const { timeoutMs, checkAddress } = limits;
  const { translation } = wire;
  const started = performance.now();
  let call: UpstreamCall;
  try {
    call = await callUpstream(
      { url: target.baseUrl + wire.path + target.query, method: "POST", headers: wire.headers, body: wire.body, clientSignal: request.clientSignal, checkAddress },
      timeoutMs,
      allowed,
    );
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    return { outcome: error.kind === "timeout" ? "timeout" : "unreachable", error };
  }
  if (translation && call.response.status >= 400) call = { ...call, response: await translatedError(call.response, translation) };
  const { response } = call;
  const outcome = outcomeOfStatus(response.status);
  if (outcome === "client_error") return { outcome, call };
  if (outcome !== "ok") return { outcome, response, retryAfterMs: retryAfterMs(response.headers) };
  if (request.stream) {
    if (!translation || !response.body) return { outcome, call };
    const headers = new Headers(response.headers);
    headers.set("content-type", "text/event-stream; charset=utf-8");
    const body = translation.stream(response.body, request.view.model, { maxEventChars: wire.maxEventChars });
    return { outcome, call: { ...call, response: new Response(body, { status: response.status, headers }) } };
  }

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
  if (translation) {
    const translated = translation.answer(parseJson(text), request.view.model);
    if (!translated) return { outcome: "malformed_response", response: rebuilt(), retryAfterMs: undefined };
    text = JSON.stringify(translated);
  }
  if (request.dialect.answer(parseJson(text)) === undefined) return { outcome: "malformed_response", response: rebuilt(), retryAfterMs: undefined };
  return { outcome, call: { ...call, response: rebuilt() } };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function translatedError(response: Response, translation: Translation): Promise<Response> {
  let text = "";
  try {
    text = await readAnswerText(response, MAX_ERROR_BODY_BYTES);
  } catch {
    // An unreadable or oversized error body: the status says enough.
  }
  const headers = new Headers(response.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  return new Response(JSON.stringify(translation.error(parseJson(text) ?? { error: { message: text.slice(0, 1000) } }, response.status)), { status: response.status, headers });
}

const ownsCredentials = (target: Target) => target.apiKey !== undefined || CREDENTIAL_HEADERS.some((name) => name in target.headers);

/** The caller's headers, with the target's own credentials and headers in place of the caller's where it has them. */
function targetHeaders(forwarded: Record<string, string>, target: Target): Record<string, string> {
  const headers = { ...forwarded };
  if (ownsCredentials(target)) {
    for (const name of CREDENTIAL_HEADERS) delete headers[name];
    if (target.apiKey !== undefined) {
      if (target.kind === "anthropic") headers["x-api-key"] = target.apiKey;
      else headers.authorization = `Bearer ${target.apiKey}`;
    }
  }
  return Object.assign(headers, target.headers);
}

/** The body as the client sent it, unless this target knows the requested model by another name. */
function bodyFor(request: ProxiedRequest, model: string): string {
  if (model === request.view.model) return request.rawBody;
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
