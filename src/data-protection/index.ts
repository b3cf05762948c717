import { Elysia } from "elysia";
import { bodyLimit, jsonTextBodyBytes } from "../http/bounded-body";
import { requestContextPlugin } from "../http/request-context";
import type { AppContext } from "../runtime/context";
import { serviceKeyAuth } from "../tenancy/auth";
import { MAX_TEST_CHARS, testBody } from "./model";
import { testText } from "./service";

/** POST /v1/data-protection/test (the policy itself is a workspace setting: PATCH /api/workspace). */
export const dataProtectionController = (ctx: AppContext) =>
  new Elysia({ prefix: "/v1/data-protection", detail: { tags: ["data protection"] } })
    .use(requestContextPlugin)
    .use(bodyLimit)
    .use(serviceKeyAuth(ctx))
    .post("/test", ({ scope, body }) => testText(scope, body.text), {
      body: testBody,
      maxBodyBytes: jsonTextBodyBytes(MAX_TEST_CHARS),
      detail: {
        summary: "Scan a text with the workspace's data protection policy, without forwarding anything",
        description:
          "Answers {findings: [{type, rule?, start, end, action}], text, blocked}: text is what the provider would receive (redact and mask findings replaced by placeholders such as [EMAIL_1]). Findings never carry the value.",
      },
    });
