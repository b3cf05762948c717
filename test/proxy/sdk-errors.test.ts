import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startSieve, type Tenant, type TestSieve } from "../support/sieve";
import { INJECTION, startDialectSuite, type DialectSuite } from "./dialect-support";

/**
 * What a developer reads when Sieve refuses a request: each official SDK prints the sentence that
 * says what to do (issue 54, point 1), and the spec's fixed bodies stay as they are.
 */
let suite: DialectSuite;
let sieve: TestSieve;
let tenant: Tenant;

beforeAll(async () => {
  suite = await startDialectSuite("sdk-errors");
  ({ sieve, tenant } = suite);
});

afterAll(() => suite.close());

const openai = (headers: Record<string, string> = tenant.serviceHeaders, baseURL = `${sieve.url}/v1`) => new OpenAI({ baseURL, apiKey: "sk-provider", defaultHeaders: headers, maxRetries: 0 });
const anthropic = (headers: Record<string, string> = tenant.serviceHeaders, baseURL = sieve.url) => new Anthropic({ baseURL, apiKey: "sk-ant-provider", defaultHeaders: headers, maxRetries: 0 });
const chat = (client: OpenAI, content = "hello") => client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content }] }).catch((e) => e);
const message = (client: Anthropic, content = "hello") => client.messages.create({ model: "claude-test", max_tokens: 16, messages: [{ role: "user", content }] }).catch((e) => e);

describe("the openai SDK prints Sieve's sentence", () => {
  test("no Sieve key → AuthenticationError naming the header and where keys come from", async () => {
    const error = await chat(openai({}));
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.message).toStartWith("401 missing X-Service-Api-Key: send your Sieve API key in the X-Service-Api-Key header");
    expect(error.message).toContain("sieve keys create");
    expect(error.code).toBe("unauthorized");
    expect(error.type).toBe("authentication_error");
  });

  test("an unknown key → 401 saying the server has no such key", async () => {
    const error = await chat(openai({ "X-Service-Api-Key": `sieve_${"x".repeat(40)}`, "X-Service-Workspace-Id": tenant.workspaceId }));
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.message).toContain("unknown or revoked API key in X-Service-Api-Key: this server's database has no such active key");
  });

  test("a body the dialect refuses → BadRequestError naming the field", async () => {
    const error = await openai().chat.completions.create({ model: "gpt-test", messages: [{ role: "wizard", content: "hi" } as never] }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.message).toStartWith("400 body.messages.0.role: ");
    expect(error.code).toBe("invalid_request");
  });

  test("a block keeps the spec's body (§2.9) byte for byte; the reason is in a header the SDK error exposes", async () => {
    const error = await chat(openai(), INJECTION);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const reason = error.headers.get("x-service-firewall-reason");
    expect(reason).toMatch(/^(prompt_injection|prompt_extraction|jailbreak|role_manipulation): the request matches built-in pattern /);
    expect(error.headers.get("x-service-firewall")).toMatch(/^block; family=/);

    const response = await fetch(`${sieve.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...tenant.serviceHeaders },
      body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: INJECTION }] }),
    });
    expect(response.status).toBe(403);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["error", "reason", "request_id"]);
    expect(body).toEqual({ error: "blocked_by_firewall", reason: response.headers.get("x-service-firewall-reason"), request_id: response.headers.get("x-service-request-id") });
  });

  test("an unreachable provider → 502 with the provider's address and what to check", async () => {
    const dead = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const deadOrigin = `http://127.0.0.1:${dead.port}`;
    await dead.stop(true);
    const other = await startSieve({ upstreamUrl: `${deadOrigin}/v1` });
    try {
      const error = await chat(openai((await other.tenant()).serviceHeaders, `${other.url}/v1`));
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect(error.status).toBe(502);
      expect(error.message).toStartWith(`502 cannot reach the provider at ${deadOrigin}: `);
      expect(error.message).toContain("--upstream-url");
      expect(error.code).toBe("upstream_unreachable");
    } finally {
      await other.close();
    }
  });
});

describe("the Anthropic SDK reads Anthropic's own error shape", () => {
  test("a malformed key → AuthenticationError; the message is in error.message", async () => {
    const error = await message(anthropic({ "X-Service-Api-Key": "not-a-key", "X-Service-Workspace-Id": tenant.workspaceId }));
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error.error).toMatchObject({ type: "error", error: { type: "authentication_error", code: "unauthorized" } });
    expect(error.error.error.message).toStartWith("malformed API key in X-Service-Api-Key: Sieve keys begin with sieve_");
    expect(error.message).toContain("Sieve keys begin with sieve_");
  });

  test("a body the dialect refuses → BadRequestError of type invalid_request_error naming the field", async () => {
    const error = await anthropic().messages.create({ model: "claude-test", max_tokens: 16, messages: [{ role: "system", content: "x" } as never] }).catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.type).toBe("invalid_request_error");
    expect(error.error.error.message).toStartWith("body.messages.0.role: ");
  });

  test("a block: PermissionDeniedError printing the family, the spec's members kept, the reason header set", async () => {
    const error = await message(anthropic(), INJECTION);
    expect(error).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(error.message).toMatch(/^403 blocked_by_firewall: (prompt_injection|prompt_extraction|jailbreak|role_manipulation): /);
    expect(error.error).toMatchObject({ error: "blocked_by_firewall", reason: error.headers.get("x-service-firewall-reason"), request_id: expect.any(String) });
  });
});

describe("Sieve's own APIs: one shape, {detail, status_code, code}", () => {
  test("document API: a bad query names the field and its bounds, without a pattern", async () => {
    const response = await fetch(`${sieve.url}/api/documents?limit=abc`, { headers: tenant.bearer });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ detail: "query.limit: expected a whole number (digits only) from 1 to 1000", status_code: 400, code: "invalid_request" });
  });

  test("the spec's 404 bodies are exactly {detail, status_code}", async () => {
    const response = await fetch(`${sieve.url}/api/documents/variants/nope/chunks`, { headers: tenant.bearer });
    expect(await response.text()).toBe('{"detail":"Variant not found","status_code":404}');
  });

  test("firewall API and an unknown Sieve route use the same shape", async () => {
    const noKey = await fetch(`${sieve.url}/v1/firewall/patterns`);
    expect(await noKey.json()).toMatchObject({ status_code: 401, code: "unauthorized", detail: expect.stringContaining("X-Service-Api-Key") });
    const unknown = await fetch(`${sieve.url}/v1/firewall/nothing`, { headers: tenant.serviceHeaders });
    expect(await unknown.json()).toEqual({ detail: "no such route", status_code: 404, code: "not_found" });
  });
});
