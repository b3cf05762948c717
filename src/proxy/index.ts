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
import { anthropicBlockedBody, anthropicErrorBody, blockedBody, errors, headers, jsonContent, jsonRequestContent, openaiErrorBody, PROXY_HEADERS } from "../docs/responses";
import { anthropicMessageAnswer, chatCompletionAnswer, responsesAnswer } from "./model";
import { z } from "zod";
import { dataProtectionStage } from "../data-protection/stage";
import { HttpError, jsonResponse } from "../http/errors";
import { RequestSpans } from "../telemetry/request-spans";
import { admitRequest, limitExceededBody, limitHeaders, limitMessage, limitWarningHeader } from "../usage/admission";

export type ProxyStages = { firewall: FirewallStage; cache: CacheStage };

type Context = { request: Request; scope: WorkspaceScope; requestId: string; receivedAt: number };

/** A block's headers: the SDKs cannot print a sentence from the spec's block body, and every SDK error exposes headers. */
const BLOCK_HEADERS = headers({
  "X-Service-Firewall": "block; family=<the matched family>",
  "X-Service-Firewall-Reason": "The block's reason, as in the body",
  "X-Service-Request-Id": "The evidence record's id",
});

/** What a dialect's route answers besides the provider's answer: the block (spec §2.9) and Sieve's errors in the dialect's shape. */
function dialectErrors(dialect: Dialect) {
  const anthropic = dialect.provider === "anthropic";
  const documented = errors(
    anthropic ? "anthropic" : "openai",
    [400, 401, 403, 413, 429, 502, 503, 504],
    {
      400: "Invalid JSON, or a missing or wrong field, named (codes invalid_json, invalid_request)",
      403: "Blocked by the firewall or data protection: the spec's body (§2.9), the reason also in X-Service-Firewall-Reason; or a key of another workspace (code forbidden)",
      413: "The body is over --max-body-bytes or --max-json-values (code payload_too_large)",
    },
    { 403: z.union([anthropic ? anthropicBlockedBody : blockedBody, anthropic ? anthropicErrorBody : openaiErrorBody]) },
  );
  documented[403] = { ...documented[403]!, headers: BLOCK_HEADERS };
  return documented;
}

const routeDoc = (dialect: Dialect, summary: string, answer: z.ZodType, example: Record<string, unknown>) => ({
  parse: "none" as const,
  detail: {
    summary,
    description:
      `${dialect.api} through Sieve: firewall → cache → evidence log → provider. The body is forwarded unchanged to the workspace's provider with the caller's provider credentials; ` +
      "a streamed request (stream: true) is answered with the provider's server-sent events, checked by the firewall while they stream. " +
      "Adds X-Service-Cache, X-Service-Latency-Ms, X-Service-Upstream-Latency-Ms and X-Service-Request-Id. Any status the provider answers is relayed as it came.",
    requestBody: { required: true, content: jsonRequestContent(dialect.schema, { example: { summary: "A short question", value: example } }) } as never,
    responses: {
      200: {
        description: "The provider's answer (JSON, or server-sent events when stream is true)",
        headers: PROXY_HEADERS,
        content: { ...jsonContent(answer), "text/event-stream": { schema: { type: "string", description: "The provider's event stream, relayed" } as never } },
      },
      ...dialectErrors(dialect),
    },
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
    afterResponse: ctx.afterResponse,
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
    .post(
      "/chat/completions",
      handle(openaiChat),
      routeDoc(openaiChat, "Chat completions (OpenAI)", chatCompletionAnswer, { model: "gpt-4.1-mini", messages: [{ role: "user", content: "What is the capital of Australia?" }] }),
    )
    .post("/responses", handle(openaiResponses), routeDoc(openaiResponses, "Responses (OpenAI)", responsesAnswer, { model: "gpt-4.1-mini", input: "What is the capital of Australia?" }))
    .post(
      "/messages",
      handle(anthropicMessages),
      routeDoc(anthropicMessages, "Messages (Anthropic)", anthropicMessageAnswer, {
        model: "claude-sonnet-4-6",
        max_tokens: 256,
        messages: [{ role: "user", content: "What is the capital of Australia?" }],
      }),
    )
    .all("/*", passthrough, {
      parse: "none",
      detail: {
        summary: "Any other provider path",
        description:
          "Every other provider path (models, files, audio, images, batches, moderations, GET /v1/responses/{id}, /v1/messages/count_tokens, …), passed through. Forwarded to the workspace's OpenAI-compatible provider, or to the Anthropic API when the request carries x-api-key or anthropic-version. " +
          "Bodies are streamed both ways; X-Service-* headers are not forwarded; latency headers and an evidence record (no bodies) are added. " +
          "Errors Sieve makes are in the provider's shape (OpenAI's, or Anthropic's for a request with Anthropic headers).",
        responses: {
          200: { description: "The provider's answer, relayed as it came (any status and content type)", headers: PROXY_HEADERS },
          ...errors("provider", [401, 403, 404, 429, 502, 504], {
            404: "A path with /v1 twice (code doubled_version_segment: an SDK base URL ending in /v1) is never forwarded; the provider's own 404 is relayed with an X-Service-Hint",
          }),
        },
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
