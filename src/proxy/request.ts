import { badRequest, httpError } from "../http/errors";
import { parseJsonBody } from "../http/json-body";
import { describeZodIssues } from "../http/validation";
import type { WorkspaceScope } from "../tenancy/scope";
import type { Workspace } from "../tenancy/service";
import { chatCompletionBody, type ChatCompletionBody } from "./model";

/** Request headers passed on to the provider; everything else (above all X-Service-*) stays here. */
const FORWARDED_HEADERS = ["authorization", "accept", "openai-organization", "openai-project", "openai-beta", "user-agent"];

/** Longest time a response may stay cached, by request header or workspace setting: one year. */
export const MAX_CACHE_TTL_SECONDS = 365 * 24 * 3600;

export type CacheControl = { lookup: boolean; store: boolean; ttlSeconds: number | undefined };

/** One chat-completions request as every pipeline stage sees it. */
export type ProxiedRequest = {
  requestId: string;
  scope: WorkspaceScope;
  /** The workspace row: its settings drive every stage. */
  workspace: Workspace;
  /** Forwarded byte for byte: the provider sees exactly what the client sent. */
  rawBody: string;
  body: ChatCompletionBody;
  stream: boolean;
  forwardHeaders: Record<string, string>;
  upstreamUrl: string;
  /** The workspace's own upstream_url (not the operator's --upstream-url): its addresses are checked at connect time. */
  upstreamFromWorkspace: boolean;
  cacheControl: CacheControl;
  /** performance.now() when the request arrived; the base of the overhead figure. */
  receivedAt: number;
  /** Aborted when the client goes away. */
  clientSignal: AbortSignal;
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
  ctx: { requestId: string; scope: WorkspaceScope; workspace: Workspace; defaultUpstreamUrl: string; maxJsonDepth: number; receivedAt: number; cacheOn: boolean },
): ProxiedRequest {
  if (!rawBody.trim()) throw badRequest("body: a JSON chat-completions request is required");
  const parsed = chatCompletionBody.safeParse(parseJsonBody(rawBody, ctx.maxJsonDepth));
  if (!parsed.success) throw badRequest(describeZodIssues("body", parsed.error.issues));

  const forwardHeaders: Record<string, string> = { "content-type": "application/json" };
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers.get(name);
    if (value) forwardHeaders[name] = value;
  }
  return {
    requestId: ctx.requestId,
    scope: ctx.scope,
    workspace: ctx.workspace,
    rawBody,
    body: parsed.data,
    stream: parsed.data.stream === true,
    forwardHeaders,
    upstreamUrl: ctx.workspace.upstreamUrl ?? ctx.defaultUpstreamUrl,
    upstreamFromWorkspace: ctx.workspace.upstreamUrl !== null && ctx.workspace.upstreamUrl !== ctx.defaultUpstreamUrl,
    cacheControl: readCacheControl(request.headers, ctx.cacheOn && ctx.workspace.cacheEnabled),
    receivedAt: ctx.receivedAt,
    clientSignal: request.signal,
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
