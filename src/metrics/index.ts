import { Elysia } from "elysia";
import { responseStatus } from "../http/basics";
import { httpError } from "../http/errors";
import { requestContextPlugin } from "../http/request-context";
import type { AppContext } from "../runtime/context";
import { metricsRefusal } from "./access";
import { errors } from "../docs/responses";

/**
 * GET /metrics in the Prometheus text format, and the count of every request the app answers.
 * Unauthenticated, so served only where an operator expects it (src/metrics/access.ts).
 */
export const metricsController = (ctx: AppContext) =>
  new Elysia()
    .use(requestContextPlugin)
    .onAfterResponse({ as: "global" }, ({ request, route, set, responseValue }) => ctx.metrics.http.record(request.method, route, responseStatus(responseValue, set)))
    .get(
      "/metrics",
      async ({ request, clientAddress }) => {
        const refusal = metricsRefusal(clientAddress, request.headers, ctx.config.metricsPublic);
        if (refusal) throw httpError(403, "forbidden", refusal);
        return new Response(await ctx.metrics.exposition(), { headers: { "content-type": ctx.metrics.contentType } });
      },
      {
        detail: {
          summary: "Prometheus metrics",
          description:
            "Prometheus metrics of this instance (loopback clients only unless --metrics-public). Requests by route and status, proxied requests by dialect, overhead and provider latency, cache hits and misses, firewall verdicts, " +
            "inference queue and run times, database latency, evidence queue, process basics. No workspace ids, keys or prompts. " +
            "403 for a client that is not on loopback, or a request relayed by a proxy (Forwarded, X-Forwarded-For, X-Real-IP), unless --metrics-public.",
          tags: ["health"],
          security: [],
          responses: {
            200: { description: "The Prometheus text format", content: { "text/plain": { schema: { type: "string" } as never } } },
            ...errors("sieve", [403], { 403: "Not a loopback client, or relayed by a proxy, without --metrics-public (code forbidden)" }),
          },
        },
      },
    );
