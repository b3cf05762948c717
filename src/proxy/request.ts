import { badRequest, httpError } from "../http/errors";
import { parseJsonBody } from "../http/json-body";
import { describeZodIssues } from "../http/validation";
import type { WorkspaceScope } from "../tenancy/scope";
import type { Workspace } from "../tenancy/service";
import type { Dialect, RequestView } from "./dialects/dialect";
import type { Admission } from "../usage/limits";

/** Longest time a response may stay cached, by request header or workspace setting: one year. */
export const MAX_CACHE_TTL_SECONDS = 365 * 24 * 3600;

export type CacheControl = { lookup: boolean; store: boolean; ttlSeconds: number | undefined };

/** The server's provider base URLs (--upstream-url, --anthropic-upstream-url). */
export type ProviderUrls = { openai: string; anthropic: string };

/**
 * The provider base URL of a workspace: its own setting, else the server's. A workspace's own URL
 * is a tenant's choice, so its addresses are checked when connecting (src/egress); the operator's is trusted.
 */
export function providerBaseUrl(provider: Dialect["provider"], workspace: Workspace, defaults: ProviderUrls): { upstreamUrl: string; upstreamFromWorkspace: boolean } {
  const own = provider === "anthropic" ? workspace.anthropicUpstreamUrl : workspace.upstreamUrl;
  return own !== null && own !== defaults[provider] ? { upstreamUrl: own, upstreamFromWorkspace: true } : { upstreamUrl: defaults[provider], upstreamFromWorkspace: false };
}

/** One proxied request, whatever its dialect, as every pipeline stage sees it. */
export type ProxiedRequest = {
  requestId: string;
  scope: WorkspaceScope;
  /** The workspace row: its settings drive every stage. */
  workspace: Workspace;
  dialect: Dialect;
  /** What the stages read of the body, in the same shape for every dialect. */
  view: RequestView;
  /** The body as parsed JSON; data protection replaces values in it (and then rewrites rawBody and view). */
  body: Record<string, unknown>;
  /**
   * Forwarded byte for byte: the provider sees exactly what the client sent, except that a chat
   * stream asks for its usage (`usageAdded`) and data protection may replace values.
   */
  rawBody: string;
  /** Sieve asked the provider for usage the client did not ask for: the relay and a cached replay leave it out. */
  usageAdded: boolean;
  stream: boolean;
  forwardHeaders: Record<string, string>;
  /** The provider's base URL; the dialect's path is appended when forwarding. */
  upstreamUrl: string;
  /** The workspace's own upstream_url (not the operator's --upstream-url): its addresses are checked at connect time. */
  upstreamFromWorkspace: boolean;
  cacheControl: CacheControl;
  /** performance.now() when the request arrived; the base of the overhead figure. */
  receivedAt: number;
  /** Aborted when the client goes away. */
  clientSignal: AbortSignal;
  /** The limits the request was admitted under (src/usage/limits.ts): its tokens and cost are charged to them. */
  admission: Admission | undefined;
};

/** The body as text, within the size limit (413 above it). */
export async function readRequestBody(request: Request, maxBodyBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  const tooLarge = () => httpError(413, "payload_too_large", `request body exceeds the ${maxBodyBytes}-byte limit`);
  if (declared > maxBodyBytes) throw tooLarge();
  const rawBody = await request.text();
  if (Buffer.byteLength(rawBody) > maxBodyBytes) throw tooLarge();
  return rawBody;
}

export function readProxiedRequest(
  request: Request,
  rawBody: string,
  dialect: Dialect,
  ctx: { requestId: string; scope: WorkspaceScope; workspace: Workspace; providerUrls: ProviderUrls; maxJsonDepth: number; maxJsonValues: number; receivedAt: number; cacheOn: boolean; admission?: Admission },
): ProxiedRequest {
  if (!rawBody.trim()) throw badRequest(`body: a JSON request for ${dialect.api} is required`);
  const body = parseJsonBody(rawBody, ctx.maxJsonDepth, ctx.maxJsonValues);
  const parsed = dialect.schema.safeParse(body);
  if (!parsed.success) throw badRequest(describeZodIssues("body", parsed.error.issues));
  const view = dialect.read(parsed.data);
  const withUsage = dialect.requestUsage?.(parsed.data, rawBody);

  const forwardHeaders: Record<string, string> = { "content-type": "application/json" };
  for (const name of dialect.forwardedHeaders) {
    const value = request.headers.get(name);
    if (value) forwardHeaders[name] = value;
  }
  const cacheOn = ctx.cacheOn && ctx.workspace.cacheEnabled && view.cache !== undefined;
  return {
    requestId: ctx.requestId,
    scope: ctx.scope,
    workspace: ctx.workspace,
    dialect,
    view,
    // The body carries the usage request too, so a body data protection rewrites still asks for it.
    body: withUsage === undefined ? (body as Record<string, unknown>) : withUsageOption(body as Record<string, unknown>),
    rawBody: withUsage ?? rawBody,
    usageAdded: withUsage !== undefined,
    stream: view.stream,
    forwardHeaders,
    ...providerBaseUrl(dialect.provider, ctx.workspace, ctx.providerUrls),
    cacheControl: readCacheControl(request.headers, cacheOn),
    receivedAt: ctx.receivedAt,
    clientSignal: request.signal,
    admission: ctx.admission,
  };
}

/**
 * X-Service-Cache-Control: no-cache (skip lookup, still store) | no-store (neither); X-Service-Cache-Ttl:
 * seconds. With the cache off (server or workspace) there is neither lookup nor store.
 */
function readCacheControl(headers: Headers, cacheOn: boolean): CacheControl {
  const directives = (headers.get("x-service-cache-control") ?? "").toLowerCase();
  const noStore = directives.includes("no-store");
  const noCache = noStore || directives.includes("no-cache");
  const ttlRaw = headers.get("x-service-cache-ttl");
  let ttlSeconds: number | undefined;
  if (ttlRaw !== null) {
    if (!/^\d+$/.test(ttlRaw.trim()) || Number(ttlRaw) <= 0 || Number(ttlRaw) > MAX_CACHE_TTL_SECONDS) {
      throw badRequest(`X-Service-Cache-Ttl: expected a whole number of seconds from 1 to ${MAX_CACHE_TTL_SECONDS}`);
    }
    ttlSeconds = Number(ttlRaw);
  }
  return { lookup: cacheOn && !noCache, store: cacheOn && !noStore, ttlSeconds };
}

/** `stream_options.include_usage: true` added to a chat body, as the dialect's requestUsage added it to the text. */
function withUsageOption(body: Record<string, unknown>): Record<string, unknown> {
  const options = typeof body.stream_options === "object" && body.stream_options !== null ? body.stream_options : {};
  return { ...body, stream_options: { ...options, include_usage: true } };
}
