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
import { AUTH_ERRORS, errors, json } from "../docs/responses";

/** What a route with a JSON body can answer besides its success. */
const BODY = [400, ...AUTH_ERRORS, 413, 415];

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
      detail: {
        summary: "List patterns",
        description: "Built-in patterns (with this workspace's overrides) and this workspace's custom patterns (spec §4.2).",
        responses: { 200: json("Patterns", patternList), ...errors("sieve", AUTH_ERRORS) },
      },
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
          responses: { 201: json("The stored pattern", patternView), ...errors("sieve", BODY) },
        },
      },
    )
    .patch("/patterns/:id", ({ scope, params, body }) => service.updatePattern(scope, params.id, body), {
      params: patternIdParams,
      body: updatePatternBody,
      maxBodyBytes: SMALL_JSON_BODY_BYTES,
      detail: {
        summary: "Change a pattern",
        description:
          "Changes a custom pattern, or a built-in's enabled, action and threshold for this workspace. Built-ins accept enabled, action and threshold (their text, family and side belong to the library: 400). A built-in's action or threshold set back to its family's default (GET /v1/firewall/families) follows the library's default again.",
        responses: { 200: json("The pattern after the change", patternView), ...errors("sieve", [...BODY, 404]) },
      },
    })
    .delete(
      "/patterns/:id",
      async ({ scope, params, set }) => {
        await service.deletePattern(scope, params.id);
        set.status = 204;
      },
      {
        params: patternIdParams,
        detail: {
          summary: "Delete a custom pattern",
          description: "Deletes one of the workspace's custom patterns; built-ins can only be disabled (PATCH).",
          responses: { 204: { description: "Deleted" }, ...errors("sieve", [400, ...AUTH_ERRORS, 404], { 400: "A built-in pattern: disable it instead" }) },
        },
      },
    )
    .get("/families", async ({ scope }) => ({ families: await service.listFamilies(scope) }), {
      detail: {
        summary: "List built-in families",
        description: "The built-in pattern families (prompt injection, jailbreak, prompt extraction, role manipulation), their defaults and whether this workspace has them on.",
        responses: { 200: json("Families", familyList), ...errors("sieve", AUTH_ERRORS) },
      },
    })
    .patch("/families/:family", ({ scope, params, body }) => service.setFamilyEnabled(scope, params.family, body.enabled), {
      params: familyParams,
      body: familyBody,
      maxBodyBytes: SMALL_JSON_BODY_BYTES,
      detail: {
        summary: "Switch a family on or off",
        description: "Switches a built-in family on or off for this workspace.",
        responses: { 200: json("The family", familyView), ...errors("sieve", [...BODY, 404]) },
      },
    })
    .post("/test", ({ scope, body }) => service.test(scope, body.text, body.channel), {
      body: testBody,
      maxBodyBytes: jsonTextBodyBytes(MAX_TEST_CHARS),
      detail: {
        summary: "Test a text",
        description: "Scores a text as a user message (or as data: channel) against this workspace's patterns, without forwarding anything.",
        responses: { 200: json("Verdict, fired patterns with raw similarity and calibrated score, and the closest pattern", testResult), ...errors("sieve", [...BODY, 503]) },
      },
    });
};
export { firewallStage } from "./service";
