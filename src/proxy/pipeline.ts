import { blockReason, type DataProtectionStage, type RequestProtection } from "../data-protection/stage";
import type { EvidenceWriter } from "../evidence/writer";
import { HttpError, internalError, jsonResponse } from "../http/errors";
import type { Logger } from "../logging/logger";
import type { ProxyMetrics } from "../metrics/proxy";
import type { Answer } from "./dialects/dialect";
import { providerErrorShape } from "./dialects/errors";
import { hintHeader, notFoundHint } from "./base-url-hints";
import { evidenceEntry, type EvidenceSubject, type RequestOutcome } from "./evidence-entry";
import { sampleLongText } from "./long-text";
import type { ProxiedRequest } from "./request";
import { blockedHeaders, firewallHeader, serviceHeaders } from "./service-headers";
import type { CachedCompletion, CacheStage, FirewallStage, FirewallVerdict, UpstreamStage } from "./stages";
import { relayStream, type StreamOutcome } from "./stream-relay";
import { readAnswerText, relayedHeaders, UpstreamError, type UpstreamCall } from "./upstream";
import type { Metered, UsageMeter } from "../usage/meter";
import type { AfterResponse } from "../runtime/after-response";

/**
 * Larger answers are relayed but not cached: storing (and later replaying) a 20 MB completion
 * costs the event loop most of a second each time, and answers that size are rarely asked twice.
 */
const MAX_CACHED_RESPONSE_CHARS = 4 * 1024 * 1024;

export type PipelineDeps = {
  protection: DataProtectionStage;
  firewall: FirewallStage;
  cache: CacheStage;
  evidence: EvidenceWriter;
  metrics: ProxyMetrics;
  /** Tokens, cost and the request's share of its limits (src/usage). */
  usage: Pick<UsageMeter, "meter">;
  /** The provider: the spec's single upstream, or the routing file's routes (src/routing). */
  upstream: UpstreamStage;
  log: Logger;
  /** The longest pause inside a stream when no route sets its own (--upstream-timeout-ms). */
  upstreamTimeoutMs: number;
  /** --max-response-bytes and --max-sse-event-bytes: no answer may take more of the server's memory. */
  maxResponseBytes: number;
  maxSseEventBytes: number;
  /**
   * --firewall-mode: "inline" (the spec's order: nothing is forwarded before the input verdict) or
   * "parallel" (the cache and the provider start while the firewall decides; nothing is answered
   * before the verdict, and a block aborts the provider call).
   */
  firewallMode: "inline" | "parallel";
  /** The evidence record, usage, metrics and cache write of an answer run after it is sent (src/runtime/after-response.ts). */
  afterResponse: AfterResponse;
};

/**
 * One request of any dialect, in the spec's order (after data protection, which rewrites what the
 * provider, and so every later stage, sees): firewall → cache → forward, with the
 * evidence record queued (written in the background) and the metrics recorded from the same
 * numbers whichever way the request ends. The dialect only reads and writes its formats; every
 * decision is taken here.
 */
export async function runPipeline(received: ProxiedRequest, deps: PipelineDeps): Promise<Response> {
  const { dialect } = received;
  // 0. Data protection: secrets and personal data blocked, or replaced before anything else reads the request.
  const { request, protection, blocked } = await deps.protection.protect(received);
  const record = (outcome: RequestOutcome) =>
    deps.afterResponse.run(() => {
      const entry = { ...outcome, cacheRejected: deps.cache.rejectedCandidate?.(request), dataProtection: protection.records() };
      const write = (metered: Metered) => deps.evidence.record(evidenceEntry(request, entry, request.workspace.logBodies, metered));
      deps.metrics.record(dialect.name, outcome);
      const metered = deps.usage.meter(request, outcome);
      return metered instanceof Promise ? metered.then(write) : write(metered);
    });
  const overhead = (upstreamMs: number) => performance.now() - request.receivedAt - upstreamMs;
  if (blocked) {
    const reason = blockReason(blocked);
    const body = dialect.errorBody("blocked", reason, request.requestId, reason);
    record({ status: 403, cacheStatus: "skip", verdicts: [], overheadMs: overhead(0), upstreamMs: 0, responseBody: JSON.stringify(body) });
    return jsonResponse(403, body, serviceHeaders({ requestId: request.requestId, cache: "miss", receivedAt: request.receivedAt, upstreamMs: 0 }));
  }

  // 1. Firewall on the input. In parallel mode the cache lookup and the provider call run meanwhile;
  // the call leaves first, so the firewall's work on the event loop does not delay it. The firewall
  // waits one turn of the event loop at most: not for an identical request in flight (single-flight)
  // or a lookup on a remote database.
  const ahead = deps.firewallMode === "parallel" ? startAhead(request, deps) : undefined;
  if (ahead) await Promise.race([ahead.sent, new Promise((turn) => setImmediate(turn))]);
  const checking = deps.firewall.checkInput(request);
  deps.cache.prepare?.(request);
  let inputVerdict: FirewallVerdict;
  try {
    inputVerdict = await checking;
  } catch (error) {
    ahead?.cancel("firewall failed");
    throw error;
  }
  if (inputVerdict.action === "block") {
    ahead?.cancel("blocked by the firewall");
    const body = dialect.errorBody("blocked", inputVerdict.reason ?? "blocked", request.requestId, inputVerdict.reason);
    record({ status: 403, cacheStatus: "skip", verdicts: [inputVerdict], overheadMs: overhead(0), upstreamMs: 0, responseBody: JSON.stringify(body) });
    const extra = blockedHeaders(inputVerdict.family, inputVerdict.reason);
    return jsonResponse(403, body, serviceHeaders({ requestId: request.requestId, cache: "miss", receivedAt: request.receivedAt, upstreamMs: 0, extra }));
  }
  const warnHeader = firewallHeader(inputVerdict.action, inputVerdict.family);

  // 2. Cache: a hit is answered here; a miss may wait for an identical request already in flight.
  const { release, hit } = ahead ? await ahead.looked : await lookUp(request, deps.cache);
  if (ahead) deps.cache.countLookup?.(request);
  if (hit) {
    release?.();
    const headers = serviceHeaders({
      requestId: request.requestId,
      cache: "hit",
      receivedAt: request.receivedAt,
      upstreamMs: 0,
      extra: { ...warnHeader, "x-service-cache-similarity": hit.similarity.toFixed(4), "x-service-cache-key": hit.key },
    });
    const responseBody = hit.body;
    const cacheHit = { key: hit.key, kind: hit.kind, similarity: Number(hit.similarity.toFixed(4)) };
    record({ status: 200, cacheStatus: "hit", cacheHit, verdicts: [inputVerdict], overheadMs: overhead(0), upstreamMs: 0, usage: dialect.answer(hit.completion)?.usage, responseBody });
    // Stored answers hold placeholders; this request's masked values are restored in them.
    const completion = protection.forClient(hit.completion);
    return request.stream
      ? new Response(dialect.replayStream(request.usageAdded ? withoutUsage(completion) : completion), { status: 200, headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } })
      : new Response(completion === hit.completion ? responseBody : JSON.stringify(completion), { status: 200, headers: { ...headers, "content-type": "application/json" } });
  }

  // 3. Forward.
  try {
    return await forward(request, deps, protection, inputVerdict, warnHeader, record, release, ahead?.call);
  } catch (error) {
    release?.();
    throw error;
  }
}

async function forward(
  request: ProxiedRequest,
  deps: PipelineDeps,
  protection: RequestProtection,
  inputVerdict: FirewallVerdict,
  warnHeader: Record<string, string>,
  record: (outcome: RequestOutcome) => void,
  release: (() => void) | undefined,
  /** Parallel mode: the provider call started while the firewall decided. */
  started: Promise<UpstreamCall | undefined> | undefined,
): Promise<Response> {
  const { dialect } = request;
  const cacheStatus = request.cacheControl.lookup ? "miss" : "skip";
  let call: UpstreamCall;
  try {
    call = (await started) ?? (await deps.upstream.send(request));
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    release?.();
    if (error.cause) deps.log.warn("provider unreachable", { request_id: request.requestId, error: error.cause.message });
    const { status, attempts } = error;
    const upstreamMs = performance.now() - request.receivedAt;
    const body = dialect.errorBody(error.code, error.message, request.requestId);
    record({ status, cacheStatus, verdicts: [inputVerdict], overheadMs: 0, upstreamMs, error: error.message, attempts });
    const extra = attempts ? { "x-service-attempts": String(attempts.length) } : undefined;
    return jsonResponse(status, body, serviceHeaders({ requestId: request.requestId, cache: "miss", receivedAt: request.receivedAt, upstreamMs, extra }));
  }

  const { response, upstreamMs, routed } = call;
  const routedHeaders = routed ? { "x-service-target": routed.target, "x-service-attempts": String(routed.attempts.length) } : undefined;
  const attempts = routed?.attempts;
  /** The response's headers once the provider has had `providerMs`, and the overhead they report. */
  const headersAfter = (providerMs: number) => {
    const headers = { ...relayedHeaders(response), ...serviceHeaders({ requestId: request.requestId, cache: "miss", receivedAt: request.receivedAt, upstreamMs: providerMs, extra: { ...warnHeader, ...routedHeaders } }) };
    return { headers, overheadMs: Number(headers["x-service-latency-ms"]) };
  };
  const monitor = response.ok ? protection.outputMonitor(deps.firewall.outputMonitor(request)) : undefined;
  const isEventStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
  /** Stores the answer off the response's path; identical requests waiting for this one (single-flight) go once it is written. */
  const storeThenRelease = (completion: Record<string, unknown>, providerMs: number) => {
    if (!request.cacheControl.store) return release?.();
    deps.afterResponse.run(() => deps.cache.store(request, completion, providerMs).finally(() => release?.()));
  };

  if (request.stream && response.ok && isEventStream && response.body) {
    // A stream's headers leave before its body: its overhead is what came before the provider answered.
    const { headers, overheadMs } = headersAfter(upstreamMs);
    const body = relayStream({
      requestId: request.requestId,
      dialect,
      upstream: response.body,
      abortUpstream: call.abort,
      monitor,
      restorer: protection.streamRestorer(),
      idleTimeoutMs: routed?.idleTimeoutMs ?? deps.upstreamTimeoutMs,
      maxBytes: deps.maxResponseBytes,
      maxEventBytes: deps.maxSseEventBytes,
      hideUsage: request.usageAdded,
      onEnd: async (outcome: StreamOutcome) => {
        const verdicts = [inputVerdict, ...(outcome.kind === "completed" || outcome.kind === "blocked" ? (outcome.outputVerdict ? [outcome.outputVerdict] : []) : [])];
        const completion = outcome.transcript.toResponse();
        // What the cache and the evidence keep of the answer: its redact and block findings replaced.
        await protection.checkAnswer(completion, outcome.transcript.text.length);
        if (outcome.kind === "completed" && request.view.cache?.storeStreamed && dialect.answer(completion)?.complete) storeThenRelease(completion, upstreamMs);
        else release?.();
        record({
          status: outcome.kind === "completed" ? 200 : outcome.kind === "blocked" ? 403 : outcome.kind === "client_aborted" ? 499 : 502,
          cacheStatus,
          verdicts,
          overheadMs,
          upstreamMs,
          usage: outcome.transcript.usage,
          answerText: outcome.transcript.text,
          responseBody: JSON.stringify(completion),
          error: outcome.kind === "upstream_error" ? outcome.error : outcome.kind === "client_aborted" ? "client disconnected" : undefined,
          attempts,
        });
      },
    });
    return new Response(body, { status: response.status, headers });
  }

  // Non-streamed (or a provider error, which is passed through unchanged). An answer that is not
  // complete (a Responses "incomplete") is still checked, and never cached.
  // Reading the body is the provider's time; the output check after it is the proxy's, so the
  // headers of a non-streamed answer are made once both are done.
  const bodyFrom = performance.now();
  const withBody = () => upstreamMs + (performance.now() - bodyFrom);
  let text: string;
  try {
    text = await readAnswerText(response, deps.maxResponseBytes);
  } catch (error) {
    release?.();
    const tooLarge = error instanceof UpstreamError;
    if (!tooLarge) deps.log.warn("provider response failed", { request_id: request.requestId, error: (error as Error).message });
    const message = tooLarge ? error.message : "the provider response broke off";
    const providerMs = withBody();
    const { headers, overheadMs } = headersAfter(providerMs);
    record({ status: 502, cacheStatus, verdicts: [inputVerdict], overheadMs, upstreamMs: providerMs, error: message, attempts });
    return jsonResponse(502, dialect.errorBody(tooLarge ? error.code : "upstream_error", message, request.requestId), headers);
  }
  const providerMs = withBody();
  const completion = response.ok ? parseJson(text) : undefined;
  // Data protection on the answer: redact and block findings replaced in `completion` (what is stored).
  const checked = completion ? await protection.checkAnswer(completion, text.length) : undefined;
  if (checked?.changed) text = JSON.stringify(completion);
  const answer: Answer | undefined = completion && dialect.answer(completion);
  const firewallVerdict = monitor && answer ? await monitor.finish(sampleLongText(answer.text)) : undefined;
  const outputVerdict = checked?.blocked ? { action: "block" as const, family: "data_protection", reason: blockReason(checked.blocked), matches: [] } : firewallVerdict;
  const verdicts = outputVerdict ? [inputVerdict, outputVerdict] : [inputVerdict];
  const { headers, overheadMs } = headersAfter(providerMs);
  if (outputVerdict?.action === "block") {
    release?.();
    const body = dialect.errorBody("blocked", outputVerdict.reason ?? "blocked", request.requestId, outputVerdict.reason);
    record({ status: 403, cacheStatus, verdicts, overheadMs, upstreamMs: providerMs, usage: answer?.usage, answerText: answer?.text, responseBody: text, attempts });
    return jsonResponse(403, body, { ...headers, ...blockedHeaders(outputVerdict.family, outputVerdict.reason) });
  }
  if (completion && answer?.complete && text.length <= MAX_CACHED_RESPONSE_CHARS) storeThenRelease(completion, providerMs);
  else release?.();
  record({ status: response.status, cacheStatus, verdicts, overheadMs, upstreamMs: providerMs, usage: answer?.usage, answerText: answer?.text, responseBody: text, attempts });
  if (response.status === 404 && !routed) return providerNotFound(request, text, headers);
  const forClient = completion ? protection.forClient(completion) : undefined;
  return new Response(forClient && forClient !== completion ? JSON.stringify(forClient) : text, { status: response.status, headers });
}

type Looked = { release: (() => void) | undefined; hit: CachedCompletion | undefined };

async function lookUp(request: ProxiedRequest, cache: CacheStage): Promise<Looked> {
  if (!request.cacheControl.lookup) return { release: undefined, hit: undefined };
  const release = await cache.claim?.(request);
  try {
    return { release, hit: await cache.lookup(request) };
  } catch (error) {
    release?.();
    throw error;
  }
}

/**
 * Parallel mode: the cache lookup and, on a miss, the provider call, started before the input
 * verdict. The provider call starts after the exact lookup (an indexed read) and beside the
 * semantic one (which embeds the prompt, as the firewall does): a semantic hit then aborts the
 * call, which the provider may bill. `cancel` (a block) aborts the provider call, drops its answer
 * unread and frees the single-flight claim; nothing started here reaches the client before the verdict.
 * `sent` resolves once the provider call has left (or is known not to be needed).
 */
function startAhead(request: ProxiedRequest, deps: PipelineDeps) {
  const stop = new AbortController();
  // The provider call sees a client that went away when the firewall blocks.
  const aborting: ProxiedRequest = { ...request, clientSignal: AbortSignal.any([request.clientSignal, stop.signal]) };
  const { cache } = deps;
  let markSent!: () => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const send = (hit: CachedCompletion | undefined) => {
    markSent();
    return hit || stop.signal.aborted ? undefined : deps.upstream.send(aborting);
  };
  let looked: Promise<Looked>;
  let call: Promise<UpstreamCall | undefined>;
  if (request.cacheControl.lookup && cache.lookupExact && cache.lookupSemantic) {
    const claimed = Promise.resolve(cache.claim?.(request));
    const exact = claimed.then(() => cache.lookupExact!(request));
    call = exact.then(send);
    const semantic = exact.then((hit) => (hit ? undefined : cache.lookupSemantic!(request)));
    looked = Promise.all([claimed, exact, semantic]).then(([release, exactHit, semanticHit]) => ({ release, hit: exactHit ?? semanticHit }));
    // Answered from the cache after all: the provider call started beside the lookup is not needed.
    semantic.then(
      (hit) => {
        if (!hit) return;
        stop.abort(new Error("answered from the cache"));
        call.then((started) => abandon(started, "answered from the cache"), () => {});
      },
      () => {},
    );
  } else {
    // A verdict that came before the lookup ended leaves the provider uncalled.
    looked = lookUp(request, cache);
    call = looked.then(({ hit }) => send(hit));
  }
  // Awaited (and its failure handled) only when the verdict allows; a block must not leave an unhandled rejection.
  looked.catch(() => {});
  call.catch(() => {});
  // A lookup that failed before the call left: the firewall starts all the same.
  call.finally(markSent).catch(() => {});
  return {
    looked,
    call,
    sent,
    cancel(reason: string) {
      stop.abort(new Error(reason));
      looked.then(({ release }) => release?.(), () => {});
      call.then((started) => abandon(started, reason), () => {});
    },
  };
}

/** A provider call whose answer nobody will read: aborted, its body dropped. */
function abandon(call: UpstreamCall | undefined, reason: string): void {
  call?.abort(reason);
  void call?.response.body?.cancel().catch(() => {});
}

/**
 * A provider's 404 on the dialect's own path almost always means a wrong base URL: the hint goes
 * in X-Service-Hint, and a body no SDK can read (HTML, plain text) is replaced by the dialect's
 * error carrying it. A provider's own JSON error is relayed as it came.
 */
function providerNotFound(request: ProxiedRequest, text: string, headers: Record<string, string>): Response {
  const hint = notFoundHint(request.dialect.provider, request.upstreamUrl, request.upstreamUrl + request.dialect.upstreamPath);
  if (parseJson(text)) return new Response(text, { status: 404, headers: { ...headers, ...hintHeader(hint) } });
  const body = providerErrorShape(request.dialect.provider)(new HttpError(404, "upstream_not_found", hint), request.requestId);
  return jsonResponse(404, body, { ...headers, ...hintHeader(hint) });
}

/**
 * A request that ended in an error outside the pipeline's own outcomes: refused while being read
 * (bad JSON, too deep, bad header, 413) or failed inside a stage. It gets the same X-Service-*
 * headers and one evidence record like every other proxied request.
 */
export function failedRequest(subject: EvidenceSubject, error: unknown, deps: Pick<PipelineDeps, "evidence" | "metrics" | "log">): Response {
  const known = error instanceof HttpError;
  if (!known) deps.log.error("proxy request failed", { request_id: subject.requestId, error });
  const failure = known ? error : internalError();
  const { status } = failure;
  const body = providerErrorShape(subject.dialect.provider)(failure, subject.requestId);
  const outcome: RequestOutcome = { status, cacheStatus: "skip", verdicts: [], overheadMs: performance.now() - subject.receivedAt, upstreamMs: 0 };
  deps.evidence.record(evidenceEntry(subject, { ...outcome, responseBody: JSON.stringify(body), error: failure.detail }, subject.workspace.logBodies));
  deps.metrics.record(subject.dialect.name, outcome);
  const headers = { ...failure.headers, ...serviceHeaders({ requestId: subject.requestId, cache: "miss", receivedAt: subject.receivedAt, upstreamMs: 0 }) };
  return jsonResponse(status, body, headers);
}

function withoutUsage(completion: Record<string, unknown>): Record<string, unknown> {
  const { usage: _usage, ...rest } = completion;
  return rest;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
