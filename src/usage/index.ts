import { Elysia } from "elysia";
import { usageView } from "../documents/usage";
import type { AppContext } from "../runtime/context";
import { bearerKeyAuth } from "../tenancy/auth";
import { usageAnswer, usageQuery } from "./model";
import { BEARER_KEY_SECURITY } from "../docs/security";
import { errors, jsonContent } from "../docs/responses";
import { usageCsv, usageReport } from "./service";

/**
 * GET /api/usage. With group_by: the proxied requests' tokens, cost and cache savings per model,
 * key, API or UTC day (JSON rows, or CSV). Without it: the document processing totals this path
 * has always answered, so existing clients keep working.
 */
export const usageController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/usage", detail: { tags: ["usage"], security: BEARER_KEY_SECURITY } }).use(bearerKeyAuth(ctx)).get(
    "/",
    async ({ scope, query, set }) => {
      if (!query.group_by) return usageView(scope);
      const rows = await usageReport(scope, { ...query, group_by: query.group_by }, ctx.usage.limits.now());
      if (query.format !== "csv") return { rows };
      set.headers["content-type"] = "text/csv; charset=utf-8";
      set.headers["content-disposition"] = `attachment; filename="sieve-usage-by-${query.group_by}.csv"`;
      return usageCsv(rows, query.group_by);
    },
    {
      query: usageQuery,
      detail: {
        summary: "Usage and cost",
        description:
          "Usage and cost of proxied requests by model, key, API or UTC day (group_by, from, to, format=json|csv); without group_by, the document processing totals. Rows: {<group>, requests, input_tokens, output_tokens, cached_tokens, reasoning_tokens, cost_usd, saved_cost_usd, cache_hits, unpriced_requests}. " +
          "from/to: ISO 8601 or epoch ms (default: the 30 days before now); tokens and cost are what providers billed, a cache hit's would-be cost is saved_cost_usd.",
        responses: {
          200: {
            description: "Rows by group (JSON, or CSV with format=csv), or the document totals without group_by",
            content: { ...jsonContent(usageAnswer), "text/csv": { schema: { type: "string" } as never } },
          },
          ...errors("sieve", [400, 401, 403, 429], { 400: "An invalid parameter, from after to, or a span over the longest report" }),
        },
      },
    },
  );
