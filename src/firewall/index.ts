import { Elysia } from "elysia";
import { bodyLimit, jsonTextBodyBytes, SMALL_JSON_BODY_BYTES } from "../http/bounded-body";
import { requestContextPlugin } from "../http/request-context";
import type { AppContext } from "../runtime/context";
import { serviceKeyAuth } from "../tenancy/auth";
import {
  createPatternBody,
  familyBody,
  familyList,
  familyParams,
  familyView,
  MAX_TEST_CHARS,
  patternIdParams,
  patternList,
  patternView,
  testBody,
  testResult,
  updatePatternBody,
} from "./model";
import { firewallService } from "./service";
import { SERVICE_KEY_SECURITY } from "../docs/security";

const json = (schema: { toJSONSchema(): unknown }) => ({ content: { "application/json": { schema: schema.toJSONSchema() as never } } });

/**
 * Spec §4.2 firewall endpoints (X-Service-Api-Key + X-Service-Workspace-Id, like the proxy).
 * The spec leaves the response shapes open; they are documented here and in the OpenAPI document.
 */
export const firewallController = (ctx: AppContext) => {
  const service = firewallService(ctx);
  return new Elysia({ prefix: "/v1/firewall", detail: { tags: ["firewall"], security: SERVICE_KEY_SECURITY } })
    .use(requestContextPlugin)
    .use(bodyLimit)
    .use(serviceKeyAuth(ctx))
    .get("/patterns", async ({ scope }) => ({ patterns: await service.listPatterns(scope) }), {
      detail: { summary: "Built-in patterns and this workspace's custom patterns", responses: { 200: { description: "Patterns", ...json(patternList) } } },
    })
    .post(
      "/patterns",
      async ({ scope, body, set }) => {
        const record = await service.createPattern(scope, body);
        set.status = 201;
        return record;
      },
      {
        body: createPatternBody,
        maxBodyBytes: SMALL_JSON_BODY_BYTES,
        detail: {
          summary: "Add a custom pattern",
          description: "threshold is on the calibrated score scale (0..1): the pattern fires when its score is strictly greater. 400 names the invalid field; nothing is saved.",
          responses: { 201: { description: "The stored pattern", ...json(patternView) } },
        },
      },
    )
    .patch("/patterns/:id", ({ scope, params, body }) => service.updatePattern(scope, params.id, body), {
      params: patternIdParams,
      body: updatePatternBody,
      maxBodyBytes: SMALL_JSON_BODY_BYTES,
      detail: {
        summary: "Change a custom pattern, or a built-in's enabled, action and threshold for this workspace",
        description:
          "Built-ins accept enabled, action and threshold (their text, family and side belong to the library: 400). A built-in's action or threshold set back to its family's default (GET /v1/firewall/families) follows the library's default again.",
        responses: { 200: { description: "The pattern after the change", ...json(patternView) } },
      },
    })
    .delete(
      "/patterns/:id",
      async ({ scope, params, set }) => {
        await service.deletePattern(scope, params.id);
        set.status = 204;
      },
      { params: patternIdParams, detail: { summary: "Delete a custom pattern (built-ins can only be disabled)", responses: { 204: { description: "Deleted" } } } },
    )
    .get("/families", async ({ scope }) => ({ families: await service.listFamilies(scope) }), {
      detail: { summary: "Built-in families and whether this workspace has them on", responses: { 200: { description: "Families", ...json(familyList) } } },
    })
    .patch("/families/:family", ({ scope, params, body }) => service.setFamilyEnabled(scope, params.family, body.enabled), {
      params: familyParams,
      body: familyBody,
      maxBodyBytes: SMALL_JSON_BODY_BYTES,
      detail: { summary: "Switch a built-in family on or off for this workspace", responses: { 200: { description: "The family", ...json(familyView) } } },
    })
    .post("/test", ({ scope, body }) => service.test(scope, body.text, body.channel), {
      body: testBody,
      maxBodyBytes: jsonTextBodyBytes(MAX_TEST_CHARS),
      detail: {
        summary: "Score a text as a user message against this workspace's patterns, without forwarding anything",
        responses: { 200: { description: "Verdict, fired patterns with raw similarity and calibrated score, and the closest pattern", ...json(testResult) } },
      },
    });
};
export { firewallStage } from "./service";
