import type { EvidenceWriter } from "../evidence/writer";
import { jsonResponse } from "../http/errors";
import type { Logger } from "../logging/logger";
import { evidenceEntry, type RequestOutcome } from "./evidence-entry";
import { replayCompletion } from "./replay";
import type { ProxiedRequest } from "./request";
import { firewallHeader, serviceHeaders } from "./service-headers";
import type { CacheStage, FirewallStage, FirewallVerdict } from "./stages";
import { relayStream, type StreamOutcome } from "./stream-relay";
import { callUpstream, relayedHeaders, UpstreamError } from "./upstream";

export type PipelineDeps = {
  firewall: FirewallStage;
  cache: CacheStage;
  evidence: EvidenceWriter;
  log: Logger;
  upstreamTimeoutMs: number;
};

/**
 * One chat-completions request, in the spec's order: firewall → cache → forward, with the
 * evidence record queued (written in the background) whichever way the request ends.
 */
export async function runPipeline(request: ProxiedRequest, deps: PipelineDeps): Promise<Response> {
  const record = (outcome: RequestOutcome) =>
    deps.evidence.record(evidenceEntry(request, { ...outcome, cacheRejected: deps.cache.rejectedCandidate?.(request) }, request.workspace.logBodies));
  const overhead = (upstreamMs: number) => performance.now() - request.receivedAt - upstreamMs;

  // 1. Firewall on the input.
  const inputVerdict = await deps.firewall.checkInput(request);
  if (inputVerdict.action === "block") {
    const body = { error: "blocked_by_firewall", reason: inputVerdict.reason, request_id: request.requestId };
    record({ status: 403, cacheStatus: "skip", verdicts: [inputVerdict], overheadMs: overhead(0), upstreamMs: 0, responseBody: JSON.stringify(body) });
    return jsonResponse(403, body, serviceHeaders({ requestId: request.requestId, cache: "miss", receivedAt: request.receivedAt, upstreamMs: 0 }));
  }
  const warnHeader = firewallHeader(inputVerdict.action, inputVerdict.family);

  // 2. Cache: a hit is answered here; a miss may wait for an identical request already in flight.
  let release: (() => void) | undefined;
  if (request.cacheControl.lookup) {
    release = await deps.cache.claim?.(request);
    const hit = await deps.cache.lookup(request);
    if (hit) {
      release?.();
      const headers = serviceHeaders({
        requestId: request.requestId,
        cache: "hit",
        receivedAt: request.receivedAt,
        upstreamMs: 0,
        extra: { ...warnHeader, "x-service-cache-similarity": hit.similarity.toFixed(4), "x-service-cache-key": hit.key },
      });
      const responseBody = JSON.stringify(hit.completion);
      record({ status: 200, cacheStatus: "hit", verdicts: [inputVerdict], overheadMs: overhead(0), upstreamMs: 0, usage: hit.completion.usage as never, responseBody });
      return replayCompletion(hit.completion, request.stream, headers);
    }
  }

  // 3. Forward.
  try {
    return await forward(request, deps, inputVerdict, warnHeader, record, release);
  } catch (error) {
    release?.();
    throw error;
  }
}

async function forward(
  request: ProxiedRequest,
  deps: PipelineDeps,
  inputVerdict: FirewallVerdict,
  warnHeader: Record<string, string>,
  record: (outcome: RequestOutcome) => void,
  release: (() => void) | undefined,
): Promise<Response> {
  const cacheStatus = request.cacheControl.lookup ? "miss" : "skip";
  let call;
  try {
    call = await callUpstream(request, deps.upstreamTimeoutMs);
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    release?.();
    const status = error.kind === "timeout" ? 504 : 502;
    const body = { error: error.kind === "timeout" ? "upstream_timeout" : "upstream_unreachable", detail: error.message, request_id: request.requestId };
    record({ status, cacheStatus, verdicts: [inputVerdict], overheadMs: 0, upstreamMs: performance.now() - request.receivedAt, error: error.message });
    return jsonResponse(status, body, serviceHeaders({ requestId: request.requestId, cache: "miss", receivedAt: request.receivedAt, upstreamMs: performance.now() - request.receivedAt }));
  }

  const { response, upstreamMs } = call;
  const headers = { ...relayedHeaders(response), ...serviceHeaders({ requestId: request.requestId, cache: "miss", receivedAt: request.receivedAt, upstreamMs, extra: warnHeader }) };
  const overheadMs = Number(headers["x-service-latency-ms"]);
  const monitor = response.ok ? deps.firewall.outputMonitor(request) : undefined;
  const isEventStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");

  if (request.stream && response.ok && isEventStream && response.body) {
    const body = relayStream({
      requestId: request.requestId,
      upstream: response.body,
      abortUpstream: call.abort,
      monitor,
      idleTimeoutMs: deps.upstreamTimeoutMs,
      onEnd: (outcome: StreamOutcome) => {
        const verdicts = [inputVerdict, ...(outcome.kind === "completed" || outcome.kind === "blocked" ? (outcome.outputVerdict ? [outcome.outputVerdict] : []) : [])];
        const completion = outcome.transcript.toCompletion();
        if (outcome.kind === "completed" && request.cacheControl.store) deps.cache.store(request, completion, upstreamMs);
        release?.();
        record({
          status: outcome.kind === "completed" ? 200 : outcome.kind === "blocked" ? 403 : outcome.kind === "client_aborted" ? 499 : 502,
          cacheStatus,
          verdicts,
          overheadMs,
          upstreamMs,
          usage: outcome.transcript.usage,
          responseBody: JSON.stringify(completion),
          error: outcome.kind === "upstream_error" ? outcome.error : outcome.kind === "client_aborted" ? "client disconnected" : undefined,
        });
      },
    });
    return new Response(body, { status: response.status, headers });
  }

  // Non-streamed (or a provider error, which is passed through unchanged).
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    release?.();
    const message = `the provider response failed: ${(error as Error).message}`;
    record({ status: 502, cacheStatus, verdicts: [inputVerdict], overheadMs, upstreamMs, error: message });
    return jsonResponse(502, { error: "upstream_error", detail: message, request_id: request.requestId }, headers);
  }
  const completion = response.ok ? parseJson(text) : undefined;
  const outputVerdict = monitor && completion ? await monitor.finish(assistantText(completion)) : undefined;
  const verdicts = outputVerdict ? [inputVerdict, outputVerdict] : [inputVerdict];
  if (outputVerdict?.action === "block") {
    release?.();
    const body = { error: "blocked_by_firewall", reason: outputVerdict.reason, request_id: request.requestId };
    record({ status: 403, cacheStatus, verdicts, overheadMs, upstreamMs, usage: completion?.usage as never, responseBody: text });
    return jsonResponse(403, body, headers);
  }
  if (completion && request.cacheControl.store) deps.cache.store(request, completion, upstreamMs);
  release?.();
  record({ status: response.status, cacheStatus, verdicts, overheadMs, upstreamMs, usage: completion?.usage as never, responseBody: text });
  return new Response(text, { status: response.status, headers });
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && Array.isArray(value.choices) ? value : undefined;
  } catch {
    return undefined;
  }
}

function assistantText(completion: Record<string, unknown>): string {
  const choices = completion.choices as { message?: { content?: unknown } }[];
  const content = choices[0]?.message?.content;
  return typeof content === "string" ? content : "";
}
