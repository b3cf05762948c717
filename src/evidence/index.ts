import { Elysia } from "elysia";
import { httpError } from "../http/errors";
import type { AppContext } from "../runtime/context";
import { serviceKeyAuth } from "../tenancy/auth";
import { evidenceList, evidenceQuery, evidenceRecordWithBodies, requestIdParams } from "./model";
import { getEvidence, listEvidence } from "./service";
import { SERVICE_KEY_SECURITY } from "../docs/security";
import { errors, json } from "../docs/responses";

/** The evidence log of the caller's workspace, newest first. */
export const evidenceController = (ctx: AppContext) =>
  new Elysia({ prefix: "/v1/evidence", detail: { tags: ["evidence"], security: SERVICE_KEY_SECURITY } })
    .use(serviceKeyAuth(ctx))
    .get("/", ({ scope, query }) => listEvidence(scope, query), {
      query: evidenceQuery,
      detail: {
        summary: "List evidence records",
        description: "The workspace's proxied requests, newest first. Filters: since/until (ISO 8601 or epoch ms), status, cache, firewall, api (e.g. POST /v1/messages); paged by limit (default 100, 1–1000) and offset.",
        responses: { 200: json("A page of records", evidenceList), ...errors("sieve", [400, 401, 403, 429]) },
      },
    })
    .get(
      "/:request_id",
      async ({ scope, params }) => {
        const record = await getEvidence(scope, params.request_id);
        if (!record) throw httpError(404, "not_found", "no evidence record with this request id in this workspace");
        return record;
      },
      {
        params: requestIdParams,
        detail: {
          summary: "Get an evidence record",
          description: "One request's record (by its X-Service-Request-Id), with its bodies when the workspace logs them.",
          responses: { 200: json("The record", evidenceRecordWithBodies), ...errors("sieve", [400, 401, 403, 404, 429]) },
        },
      },
    );
