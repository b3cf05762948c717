import { Elysia } from "elysia";
import { httpError } from "../http/errors";
import type { AppContext } from "../runtime/context";
import { serviceKeyAuth } from "../tenancy/auth";
import { evidenceQuery, requestIdParams } from "./model";
import { getEvidence, listEvidence } from "./service";
import { SERVICE_KEY_SECURITY } from "../docs/security";

/** The evidence log of the caller's workspace, newest first. */
export const evidenceController = (ctx: AppContext) =>
  new Elysia({ prefix: "/v1/evidence", detail: { tags: ["evidence"], security: SERVICE_KEY_SECURITY } })
    .use(serviceKeyAuth(ctx))
    .get("/", ({ scope, query }) => listEvidence(scope, query), {
      query: evidenceQuery,
      detail: { summary: "Proxied requests: filters since/until (ISO or epoch ms), status, cache, firewall, api (e.g. POST /v1/messages); paged by limit/offset" },
    })
    .get(
      "/:request_id",
      async ({ scope, params }) => {
        const record = await getEvidence(scope, params.request_id);
        if (!record) throw httpError(404, "not_found", "no evidence record with this request id in this workspace");
        return record;
      },
      { params: requestIdParams, detail: { summary: "One request's record, with bodies when the workspace logs them" } },
    );
