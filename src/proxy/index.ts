import { Elysia } from "elysia";
import type { AppContext } from "../runtime/context";
import { requestContextPlugin } from "../http/request-context";
import { serviceKeyAuth } from "../tenancy/auth";
import { findWorkspace } from "../tenancy/service";
import { chatCompletionBody } from "./model";
import { parseAllowedHosts } from "../egress/allowed-hosts";
import { failedRequest, runPipeline, type PipelineDeps } from "./pipeline";
import { readProxiedRequest, readRequestBody } from "./request";
import type { CacheStage, FirewallStage } from "./stages";

export type ProxyStages = { firewall: FirewallStage; cache: CacheStage };

/** POST /v1/chat/completions: the OpenAI-compatible proxy (spec §4.1). */
export const proxyController = (ctx: AppContext, stages: ProxyStages) => {
  const deps: PipelineDeps = {
    ...stages,
    evidence: ctx.evidence,
    log: ctx.log,
    upstreamTimeoutMs: ctx.config.upstreamTimeoutMs,
    allowedUpstreamHosts: parseAllowedHosts(ctx.config.allowUpstreamHosts),
  };
  return new Elysia({ prefix: "/v1", detail: { tags: ["proxy"] } }).use(requestContextPlugin).use(serviceKeyAuth(ctx)).post(
    "/chat/completions",
    async ({ request, scope, requestId, receivedAt }) => {
      const workspace = findWorkspace(ctx.database.db, scope.workspaceId)!;
      let rawBody: string | undefined;
      try {
        rawBody = await readRequestBody(request, ctx.config.maxBodyBytes);
        const proxied = readProxiedRequest(request, rawBody, {
          requestId,
          scope,
          workspace,
          defaultUpstreamUrl: ctx.config.upstreamUrl,
          maxJsonDepth: ctx.config.maxJsonDepth,
          receivedAt,
          cacheOn: ctx.config.cache,
        });
        return await runPipeline(proxied, deps);
      } catch (error) {
        return failedRequest({ requestId, scope, workspace, receivedAt, rawBody }, error, deps);
      }
    },
    {
      parse: "none",
      detail: {
        summary: "OpenAI-compatible chat completions through the firewall and cache",
        description:
          "The body is forwarded unchanged to the workspace's provider with the caller's Authorization header. " +
          "Adds X-Service-Cache, X-Service-Latency-Ms, X-Service-Upstream-Latency-Ms and X-Service-Request-Id.",
        requestBody: { content: { "application/json": { schema: chatCompletionBody.toJSONSchema() as never } } } as never,
      },
    },
  );
};
