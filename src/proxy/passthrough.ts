import type { AppContext } from "../runtime/context";
import type { WorkspaceScope } from "../tenancy/scope";
import { findWorkspace } from "../tenancy/service";
import { jsonResponse, sieveErrorBody, type ErrorShape } from "../http/errors";
import { anthropicError, openaiError, providerErrorShape } from "./dialects/errors";
import { anthropicMessages } from "./dialects/anthropic-messages";
import type { Dialect } from "./dialects/dialect";
import { openaiChat } from "./dialects/openai-chat";
import { sha256Hex } from "../tenancy/secrets";
import { providerBaseUrl } from "./request";
import { serviceHeaders } from "./service-headers";
import { hintHeader, missingVersionHint, notFoundHint } from "./base-url-hints";
import { callUpstream, relayedHeaders, UpstreamError } from "./upstream";
import type { Admission } from "../usage/limits";
import type { Metered } from "../usage/meter";
import { answerUsage, MAX_METERED_BODY_BYTES, meterable, tapBody } from "../usage/passthrough";

/** /v1 prefixes that are Sieve's own API: never forwarded. */
const SIEVE_PREFIXES = ["/v1/firewall", "/v1/cache", "/v1/evidence"];

/**
 * Request headers that stay here: Sieve's credentials and settings, the dashboard's cookie and
 * CSRF token, and hop-by-hop transport headers (fetch sets its own).
 */
const KEPT_REQUEST_HEADERS = /^(x-service-.*|cookie|x-csrf-token|host|connection|keep-alive|transfer-encoding|te|trailer|upgrade|proxy-.*|accept-encoding|content-length|x-request-id)$/i;


const EMPTY_PROMPT_SHA256 = sha256Hex("");

export function isSievePath(path: string): boolean {
  return SIEVE_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** Paths whose JSON bodies Sieve reads itself; every other /v1 body is a pass-through, relayed as it arrives. */
const READ_PATHS = new Set(["/v1/chat/completions", "/v1/responses", "/v1/messages", "/v1/embeddings"]);

/** Whether a request's body goes to the provider as it arrives (uploads of files, audio, batches…), never buffered whole. */
export function isStreamedPassthrough(url: URL): boolean {
  return url.pathname.startsWith("/v1/") && !READ_PATHS.has(url.pathname) && !isSievePath(url.pathname);
}

/** Anthropic's SDK always sends anthropic-version, and its key in x-api-key: that is how /v1/models finds the right provider. */
export function providerOf(headers: Headers): Dialect["provider"] {
  return headers.has("anthropic-version") || headers.has("x-api-key") ? "anthropic" : "openai";
}

/**
 * The error shape of a request to a /v1 path: the provider API it speaks (a dialect's path, else
 * the provider the headers name), Sieve's own shape for Sieve's own APIs and every other path.
 */
export function errorShapeFor(request: Request): ErrorShape {
  const url = new URL(request.url);
  // A provider path without /v1 (a base URL missing it) is answered in the provider's shape too.
  const path = missingVersionHint(url.pathname, url.origin) ? `/v1${url.pathname}` : url.pathname;
  if (!path.startsWith("/v1/") || isSievePath(path)) return sieveErrorBody;
  if (path === "/v1/messages") return anthropicError;
  if (READ_PATHS.has(path)) return openaiError;
  return providerErrorShape(providerOf(request.headers));
}

/**
 * Forwards any other /v1 request to the provider: same method, path and query, the caller's
 * headers minus Sieve's, the body streamed as it arrives (uploads are never buffered) and the
 * answer streamed back. An OpenAI-compatible base URL ends at its version segment (…/v1), an
 * Anthropic one does not, so `/v1` is dropped from the path for OpenAI only. The evidence
 * record has the method and path, status and latencies, never the bodies (they may be files).
 */
export async function forwardPassthrough(
  request: Request,
  body: string | ReadableStream<Uint8Array> | null,
  at: {
    ctx: AppContext;
    scope: WorkspaceScope;
    requestId: string;
    receivedAt: number;
    /** When the caller read it from a buffered body. */
    model?: string;
    /** The limits the request was admitted under: a metered answer is charged to them. */
    admission?: Admission;
  },
): Promise<Response> {
  const { ctx, scope, requestId, receivedAt } = at;
  const url = new URL(request.url);
  const provider = providerOf(request.headers);
  const { upstreamUrl: base, upstreamFromWorkspace } = providerBaseUrl(provider, (await findWorkspace(ctx.database, scope.workspaceId))!, { openai: ctx.config.upstreamUrl, anthropic: ctx.config.anthropicUpstreamUrl });
  const path = provider === "openai" ? url.pathname.replace(/^\/v1(?=\/|$)/, "") : url.pathname;
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (!KEPT_REQUEST_HEADERS.test(name)) headers[name] = value;
  });
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  const api = `${request.method} ${url.pathname}`.slice(0, 200);
  const record = (status: number, upstreamMs: number, stream: boolean, error?: string, metered?: Metered & { model: string | undefined }) => {
    const overheadMs = Math.max(0, performance.now() - receivedAt - upstreamMs);
    ctx.metrics.proxy.record("passthrough", { status, cacheStatus: "skip", verdicts: [], overheadMs, upstreamMs });
    const usage = metered?.usage;
    ctx.evidence.record({
      requestId,
      workspaceId: scope.workspaceId,
      keyId: scope.actor.keyId,
      api,
      model: at.model ?? metered?.model ?? null,
      stream,
      status,
      cacheStatus: "skip",
      firewallAction: "allow",
      firewallMatches: [],
      overheadMs: Math.round(overheadMs),
      upstreamMs: Math.max(0, Math.round(upstreamMs)),
      promptSha256: EMPTY_PROMPT_SHA256,
      error: error ?? null,
      ...(usage
        ? {
            promptTokens: usage.prompt_tokens ?? null,
            completionTokens: usage.completion_tokens ?? null,
            totalTokens: usage.total_tokens ?? null,
            cachedTokens: usage.cached_tokens ?? null,
            reasoningTokens: usage.reasoning_tokens ?? null,
            costUsd: metered.costUsd,
            limitWarning: metered.limitWarning,
          }
        : {}),
    });
  };
  /** A JSON answer's stated usage, metered (cost, counters, limits) once the client has read it whole. */
  const meterAnswer = (status: number, upstreamMs: number) => (bytes: Uint8Array | undefined) => {
    const stated = bytes && answerUsage(provider, bytes);
    const model = at.model ?? stated?.model;
    if (!stated?.usage || !model) return record(status, upstreamMs, false);
    const outcome = { status, cacheStatus: "skip" as const, verdicts: [], overheadMs: 0, upstreamMs, usage: stated.usage };
    const metered = ctx.usage.meter.meter({ scope, admission: at.admission, dialect: { provider }, view: { model, texts: [] } }, outcome);
    const write = (m: Metered) => record(status, upstreamMs, false, undefined, { ...m, model });
    if (metered instanceof Promise) void metered.then(write);
    else write(metered);
  };

  try {
    const { response, upstreamMs } = await callUpstream(
      { url: base + path + url.search, method: request.method, headers, body: hasBody ? body : null, clientSignal: request.signal, checkAddress: upstreamFromWorkspace },
      ctx.config.upstreamTimeoutMs,
      ctx.allowedUpstreamHosts,
    );
    const relayed = relayedHeaders(response, { passthrough: true });
    const stream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    let answer = response.body;
    if (!stream && meterable(response)) answer = tapBody(response.body!, MAX_METERED_BODY_BYTES, meterAnswer(response.status, upstreamMs));
    else record(response.status, upstreamMs, stream);
    const hint = response.status === 404 ? hintHeader(notFoundHint(provider, base, base + path)) : {};
    return new Response(answer, { status: response.status, headers: { ...relayed, ...serviceHeaders({ requestId, cache: "miss", receivedAt, upstreamMs }), ...hint } });
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    const { status } = error;
    const upstreamMs = performance.now() - receivedAt;
    record(status, upstreamMs, false, error.message);
    const dialect = provider === "anthropic" ? anthropicMessages : openaiChat;
    const body = dialect.errorBody(error.code, error.message, requestId);
    return jsonResponse(status, body, serviceHeaders({ requestId, cache: "miss", receivedAt, upstreamMs }));
  }
}
