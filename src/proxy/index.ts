import { Elysia } from "elysia";
import type { AppContext } from "../runtime/context";
import { httpError } from "../http/errors";
import { requestContextPlugin } from "../http/request-context";
import { serviceKeyAuth } from "../tenancy/auth";
import type { WorkspaceScope } from "../tenancy/scope";
import { findWorkspace } from "../tenancy/service";
import { anthropicMessages } from "./dialects/anthropic-messages";
import type { Dialect } from "./dialects/dialect";
import { openaiChat } from "./dialects/openai-chat";
import { openaiResponses } from "./dialects/openai-responses";
import { forwardPassthrough, isSievePath, providerOf } from "./passthrough";
import { doubledVersionHint, missingVersionHint } from "./base-url-hints";
import { failedRequest, runPipeline, type PipelineDeps } from "./pipeline";
import { readProxiedRequest, readRequestBody } from "./request";
import type { CacheStage, FirewallStage, UpstreamStage } from "./stages";
import { directUpstream } from "./upstream";
import { routedUpstream } from "../routing/routed-upstream";
import { SERVICE_KEY_SECURITY } from "../docs/security";
import { dataProtectionStage } from "../data-protection/stage";
import { HttpError, jsonResponse } from "../http/errors";
import { RequestSpans } from "../telemetry/request-spans";
import { admitRequest, limitExceededBody, limitHeaders, limitMessage, limitWarningHeader } from "../usage/admission";

export type ProxyStages = { firewall: FirewallStage; cache: CacheStage };

type Context = { request: Request; scope: WorkspaceScope; requestId: string; receivedAt: number };

const routeDoc = (dialect: Dialect, summary: string) => ({
  parse: "none" as const,
  detail: {
    summary,
    description:
      "The body is forwarded unchanged to the workspace's provider with the caller's provider credentials. " +
      "Adds X-Service-Cache, X-Service-Latency-Ms, X-Service-Upstream-Latency-Ms and X-Service-Request-Id.",
    requestBody: { content: { "application/json": { schema: dialect.schema.toJSONSchema() as never } } } as never,
  },
});

/** The spec's single upstream, with the workspace's own routes and the routing file's (--config) in front of it. */
function upstreamStage(ctx: AppContext): UpstreamStage {
  const { file, breakers, tenantBreakers, workspaceRoutes } = ctx.routing;
  return routedUpstream({
    fileTable: () => file?.table,
    workspaceRoutes,
    breakers,
    tenantBreakers,
    direct: directUpstream(ctx.config.upstreamTimeoutMs, ctx.allowedUpstreamHosts),
    metrics: ctx.metrics.routing,
    allowedUpstreamHosts: ctx.allowedUpstreamHosts,
    maxResponseBytes: ctx.config.maxResponseBytes,
    maxSseEventBytes: ctx.config.maxSseEventBytes,
  });
}

/**
 * The provider APIs Sieve speaks (spec §4.1): chat completions, OpenAI's Responses API and
 * Anthropic's Messages API run the pipeline, each through its dialect adapter; every other
 * /v1 path is passed through to the provider.
 */
export const proxyController = (ctx: AppContext, stages: ProxyStages) => {
  const untraced: PipelineDeps = {
    ...stages,
    protection: dataProtectionStage(ctx.metrics.dataProtection),
    upstream: upstreamStage(ctx),
    evidence: ctx.evidence,
    metrics: ctx.metrics.proxy,
    log: ctx.log,
    upstreamTimeoutMs: ctx.config.upstreamTimeoutMs,
    maxResponseBytes: ctx.config.maxResponseBytes,
    maxSseEventBytes: ctx.config.maxSseEventBytes,
    firewallMode: ctx.config.firewallMode,
    usage: ctx.usage.meter,
  };
  const spans = ctx.tracing && new RequestSpans(ctx.tracing.tracer);
  const deps = spans ? spans.wrap(untraced) : untraced;
  const providerUrls = { openai: ctx.config.upstreamUrl, anthropic: ctx.config.anthropicUpstreamUrl };
  const handle = (dialect: Dialect) => async ({ request, scope, requestId, receivedAt }: Context) => {
    const workspace = (await findWorkspace(ctx.database, scope.workspaceId))!;
    const span = spans?.start(request, dialect.api);
    let rawBody: string | undefined;
    try {
      const admission = await admitRequest(ctx, scope, { workspace, spending: true });
      if (admission.refused) {
        const { refused } = admission;
        // Rendered in the dialect's shape (and recorded) like every other refusal; the limit's figures beside the error.
        throw new HttpError(429, "rate_limited", limitMessage(refused), limitHeaders(refused, ctx.usage.limits.now()), limitExceededBody(refused, {}));
      }
      rawBody = await readRequestBody(request, ctx.config.maxBodyBytes);
      const proxied = readProxiedRequest(request, rawBody, dialect, {
        requestId,
        scope,
        workspace,
        providerUrls,
        maxJsonDepth: ctx.config.maxJsonDepth,
        maxJsonValues: ctx.config.maxJsonValues,
        receivedAt,
        cacheOn: ctx.config.cache,
        admission,
      });
      if (span) spans!.attach(proxied, span);
      const response = await runPipeline(proxied, deps);
      for (const [name, value] of Object.entries(limitWarningHeader(admission.warnings))) response.headers.set(name, value);
      return response;
    } catch (error) {
      const failed = failedRequest({ requestId, scope, workspace, receivedAt, rawBody, dialect }, error, deps);
      if (span) spans!.fail(span, requestId, failed.status, error);
      return failed;
    }
  };
  const passthrough = async ({ request, scope, requestId, receivedAt }: Context) => {
    const url = new URL(request.url);
    // Under Sieve's own prefixes a path Sieve does not serve is a 404 here, never a provider call.
    if (isSievePath(url.pathname)) throw httpError(404, "not_found", "no such route");
    const doubled = doubledVersionHint(url.pathname, url.origin);
    if (doubled) throw httpError(404, "doubled_version_segment", doubled);
    const admission = await admitRequest(ctx, scope, { spending: true });
    const { refused } = admission;
    if (refused) {
      const dialect = providerOf(request.headers) === "anthropic" ? anthropicMessages : openaiChat;
      const body = { ...limitExceededBody(refused, dialect.errorBody("rate_limited", limitMessage(refused), requestId)), request_id: requestId };
      return jsonResponse(429, body, { ...limitHeaders(refused, ctx.usage.limits.now()), "x-service-request-id": requestId });
    }
    return forwardPassthrough(request, request.body, { ctx, scope, requestId, receivedAt, admission });
  };
  return new Elysia({ prefix: "/v1", detail: { tags: ["proxy"], security: SERVICE_KEY_SECURITY } })
    .use(requestContextPlugin)
    .use(serviceKeyAuth(ctx, { admit: false }))
    .post("/chat/completions", handle(openaiChat), routeDoc(openaiChat, "OpenAI-compatible chat completions through the firewall and cache"))
    .post("/responses", handle(openaiResponses), routeDoc(openaiResponses, "OpenAI Responses API through the firewall and cache"))
    .post("/messages", handle(anthropicMessages), routeDoc(anthropicMessages, "Anthropic Messages API through the firewall and cache"))
    .all("/*", passthrough, {
      parse: "none",
      detail: {
        summary: "Every other provider path (models, files, audio, images, batches, moderations, GET /v1/responses/{id}, /v1/messages/count_tokens, …), passed through",
        description:
          "Forwarded to the workspace's OpenAI-compatible provider, or to the Anthropic API when the request carries x-api-key or anthropic-version. " +
          "Bodies are streamed both ways; X-Service-* headers are not forwarded; latency headers and an evidence record (no bodies) are added.",
      },
    });
};

/** The provider paths without /v1 (an SDK whose base URL lacks it): a 404 that names the base URL to use. */
export const versionlessPathsController = () => {
  const refuse = ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    throw httpError(404, "not_found", missingVersionHint(url.pathname, url.origin)!);
  };
  const app = new Elysia({ detail: { hide: true } });
  for (const path of ["/chat/completions", "/responses", "/messages", "/embeddings", "/models", "/completions"]) app.all(path, refuse, { parse: "none" });
  return app;
};
