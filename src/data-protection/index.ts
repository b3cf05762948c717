import { Elysia } from "elysia";
import { bodyLimit, jsonTextBodyBytes } from "../http/bounded-body";
import { requestContextPlugin } from "../http/request-context";
import type { AppContext } from "../runtime/context";
import { serviceKeyAuth } from "../tenancy/auth";
import { MAX_TEST_CHARS, testBody, testResult } from "./model";
import { SERVICE_KEY_SECURITY } from "../docs/security";
import { errors, json } from "../docs/responses";
import { testText } from "./service";

/** POST /v1/data-protection/test (the policy itself is a workspace setting: PATCH /api/workspace). */
export const dataProtectionController = (ctx: AppContext) =>
  new Elysia({ prefix: "/v1/data-protection", detail: { tags: ["data protection"], security: SERVICE_KEY_SECURITY } })
    .use(requestContextPlugin)
    .use(bodyLimit)
    .use(serviceKeyAuth(ctx))
    .post("/test", ({ scope, body }) => testText(scope, body.text), {
      body: testBody,
      maxBodyBytes: jsonTextBodyBytes(MAX_TEST_CHARS),
      detail: {
        summary: "Test a text",
        description:
          "Scans a text with the workspace's data protection policy, without forwarding anything. text is what the provider would receive (redact and mask findings replaced by placeholders such as [EMAIL_1]); findings never carry the value.",
        responses: { 200: json("Findings and the text as it would leave", testResult), ...errors("sieve", [400, 401, 403, 413, 415, 429]) },
      },
    });
