/**
 * Issue #17, defects 2, 4, 9, 10, 11: bodies, queries, paths and hosts as an attacker sends
 * them. Every case must end in a fast, clear 4xx naming the problem, never a 500 or a hang.
 */
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { errorOf } from "../support/error-body";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startSieve, type Tenant, type TestSieve } from "../support/sieve";
import { rawExchange, statusOf } from "./raw-http";

let sieve: TestSieve;
let upstream: FakeUpstream;
let tenant: Tenant;

beforeAll(async () => {
  upstream = startFakeUpstream();
  sieve = await startSieve({ upstreamUrl: upstream.url, evidenceFlushMs: 20, bodyTimeoutMs: 500 });
  tenant = await sieve.tenant("hardening");
});
afterAll(async () => {
  await sieve.close();
  await upstream.stop();
});

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const deepArray = nested(100_000);
/** Deep enough to fail the depth check, small enough for the routes with a 16 KiB body limit (small-bodies.test.ts). */
const deepSmall = nested(1_000);

async function evidenceFor(requestId: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const response = await fetch(`${sieve.url}/v1/evidence/${requestId}`, { headers: tenant.serviceHeaders });
    if (response.status === 200) return response.json();
    await Bun.sleep(20);
  }
  throw new Error(`no evidence for ${requestId}`);
}

describe("deeply nested JSON (defect 2)", () => {
  const routes: [method: string, path: string, body: string, auth: () => Record<string, string>][] = [
    ["POST", "/api/auth/login", `{"email":"a@b.example","password":${deepSmall}}`, () => ({})],
    ["POST", "/api/auth/signup", `{"email":"a@b.example","password":"longenough","x":${deepSmall}}`, () => ({})],
    ["POST", "/api/keys", `{"name":${deepSmall}}`, () => tenant.bearer],
    ["PATCH", "/api/workspace", `{"name":${deepSmall}}`, () => tenant.bearer],
    ["POST", "/v1/firewall/patterns", `{"text":${deepSmall}}`, () => tenant.serviceHeaders],
    ["POST", "/v1/firewall/test", `{"text":"hi","extra":${deepArray}}`, () => tenant.serviceHeaders],
    ["POST", "/v1/embeddings", `{"model":"m","input":${deepArray}}`, () => tenant.serviceHeaders],
  ];
  for (const [method, path, body, auth] of routes) {
    test(`${method} ${path} → 400 naming the depth limit`, async () => {
      const response = await fetch(`${sieve.url}${path}`, { method, headers: { "content-type": "application/json", ...auth() }, body });
      expect(response.status).toBe(400);
      const error = errorOf(await response.json());
      expect(error.code).toBe("invalid_json");
      expect(error.message).toContain("nested deeper than 64 levels");
    });
  }

  test("the proxy: 400 with the X-Service-* headers and an evidence record; nothing forwarded", async () => {
    const forwardedBefore = upstream.received.length;
    const body = `{"model":"m","messages":[{"role":"user","content":"hi"}],"passthrough":${deepArray}}`;
    const response = await fetch(`${sieve.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...tenant.serviceHeaders }, body });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toMatchObject({ type: "invalid_request_error", code: "invalid_json", message: expect.stringContaining("nested deeper than 64 levels") });
    const requestId = response.headers.get("x-service-request-id")!;
    expect(requestId).toBeTruthy();
    expect(response.headers.get("x-service-cache")).toBe("miss");
    expect(response.headers.get("x-service-latency-ms")).toMatch(/^\d+$/);
    expect(response.headers.get("x-service-upstream-latency-ms")).toBe("0");
    const record = await evidenceFor(requestId);
    expect(record.status).toBe(400);
    expect(upstream.received.length).toBe(forwardedBefore);
  });

  test("every other proxy 4xx (bad JSON, bad fields) is in the evidence log too", async () => {
    const response = await fetch(`${sieve.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...tenant.serviceHeaders }, body: "{not json" });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-service-latency-ms")).toMatch(/^\d+$/);
    expect((await evidenceFor(response.headers.get("x-service-request-id")!)).status).toBe(400);
  });

  test("nesting within the limit is accepted", async () => {
    const nested = "[".repeat(40) + "1" + "]".repeat(40);
    const response = await fetch(`${sieve.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...tenant.serviceHeaders },
      body: `{"model":"m","messages":[{"role":"user","content":"nested ok"}],"metadata":{"deep":${nested}}}`,
    });
    expect(response.status).toBe(200);
  });
});

describe("a conversation of very many values (--max-json-values)", () => {
  // 250,000 one-word messages fit in 8.5 MB, under --max-body-bytes, yet validation, the
  // firewall's message walk and the cache key each cost a little per message: ~0.5 s of event
  // loop for the whole server. The count is checked right after parsing, before any of them.
  const conversation = (length: number) => Array.from({ length }, (_, i) => ({ role: i % 2 ? ("assistant" as const) : ("user" as const), content: `w${i}` }));

  test("OpenAI SDK: 250,000 messages → 413 naming the flag, nothing forwarded, in the evidence log", async () => {
    const forwardedBefore = upstream.received.length;
    const openai = new OpenAI({ baseURL: `${sieve.url}/v1`, apiKey: "sk-test", defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });
    const error = await openai.chat.completions.create({ model: "m", messages: conversation(250_000) }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(413);
    expect(error.code).toBe("payload_too_large");
    expect(error.message).toContain("--max-json-values");
    expect(upstream.received.length).toBe(forwardedBefore);
    expect((await evidenceFor(error.headers.get("x-service-request-id"))).status).toBe(413);
  });

  test("the detail names the limit and the flag", async () => {
    const response = await fetch(`${sieve.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...tenant.serviceHeaders },
      body: JSON.stringify({ model: "m", messages: conversation(30_000) }),
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as any).error).toMatchObject({ code: "payload_too_large", message: "body: more than 50000 JSON values (objects, arrays, strings, numbers…; --max-json-values)" });
  });

  test("Anthropic SDK: the same limit on /v1/messages", async () => {
    const anthropic = new Anthropic({ baseURL: sieve.url, apiKey: "sk-ant-test", defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });
    const error = await anthropic.messages.create({ model: "claude-test", max_tokens: 16, messages: conversation(20_000) }).catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error.status).toBe(413);
  });

  test("a long conversation under the limit is answered", async () => {
    const openai = new OpenAI({ baseURL: `${sieve.url}/v1`, apiKey: "sk-test", defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });
    const answer = await openai.chat.completions.create({ model: "m", messages: conversation(10_000) });
    expect(answer.choices[0]!.message.content).toBeTruthy();
  });
});

describe("the schema is the contract (defect 9)", () => {
  test("POST /api/keys: an XML body → 415; unknown fields → 400 naming them", async () => {
    const xml = await fetch(`${sieve.url}/api/keys`, { method: "POST", headers: { ...tenant.bearer, "content-type": "application/xml" }, body: "<key><name>x</name></key>" });
    expect(xml.status).toBe(415);
    const unknown = await fetch(`${sieve.url}/api/keys`, { method: "POST", headers: { ...tenant.bearer, "content-type": "application/json" }, body: JSON.stringify({ name: "k", scopes: ["all"] }) });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).detail).toContain("scopes");
  });

  for (const value of ["0x10", "1e3", "+5", " 5", "", "5.0", "-1", "abc"]) {
    test(`limit=${JSON.stringify(value)} and offset=${JSON.stringify(value)} → 400 naming the field`, async () => {
      for (const [path, headers] of [
        ["/v1/evidence", tenant.serviceHeaders],
        ["/api/documents", tenant.bearer],
      ] as const) {
        for (const field of ["limit", "offset"]) {
          const response = await fetch(`${sieve.url}${path}?${field}=${encodeURIComponent(value)}`, { headers });
          expect(response.status).toBe(400);
          expect(((await response.json()) as any).detail).toContain(`query.${field}`);
        }
      }
    });
  }

  test("plain digits are fine", async () => {
    const response = await fetch(`${sieve.url}/api/documents?limit=5&offset=0`, { headers: tenant.bearer });
    expect(response.status).toBe(200);
  });

  for (const value of [true, null, 1.5, -1, "x"]) {
    test(`chunk_overlap: ${JSON.stringify(value)} (JSON upload) → 400 naming the field`, async () => {
      const response = await fetch(`${sieve.url}/api/documents`, {
        method: "POST",
        headers: { ...tenant.bearer, "content-type": "application/json" },
        body: JSON.stringify({ filename: "a.txt", text: "Some words to chunk.", chunk_overlap: value }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).detail).toContain("chunk_overlap");
    });
  }

  test("a path id `null` is the text null, not JSON null", async () => {
    const response = await fetch(`${sieve.url}/api/keys/null`, { method: "DELETE", headers: tenant.bearer });
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).detail).toBe("API key not found");
    for (const [method, path, headers] of [
      ["GET", "/api/documents/variants/null", tenant.bearer],
      ["GET", "/api/documents/null", tenant.bearer],
      ["GET", "/v1/evidence/null", tenant.serviceHeaders],
      ["DELETE", "/v1/firewall/patterns/null", tenant.serviceHeaders],
    ] as const) {
      const response = await fetch(`${sieve.url}${path}`, { method, headers });
      expect(response.status, path).toBe(404);
      expect(await response.text(), path).not.toContain("null");
    }
  });
});

describe("Host header (defect 4)", () => {
  for (const host of ["llm", "api", "ai", "a", "a:1", "llm:80", "localhost", "sieve.internal:8080"]) {
    test(`Host: ${host} reaches the routes`, async () => {
      const { text } = await rawExchange(sieve.port, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(statusOf(text)).toBe(200);
      const keys = await fetch(`${sieve.url}/api/keys`, { headers: { ...tenant.bearer, host } });
      expect(keys.status).toBe(200);
    });
  }
});

describe("request bodies that never arrive (defect 10)", () => {
  test("a body that stops short of its Content-Length → 408 and the connection is closed", async () => {
    const { text, closedByServer } = await rawExchange(
      sieve.port,
      `POST /api/auth/login HTTP/1.1\r\nHost: sieve\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":`,
    );
    expect(statusOf(text)).toBe(408);
    expect(text).toContain("--body-timeout-ms");
    expect(closedByServer).toBe(true);
  });

  test("the same on the proxy", async () => {
    const headers = Object.entries(tenant.serviceHeaders).map(([k, v]) => `${k}: ${v}\r\n`).join("");
    const { text, closedByServer } = await rawExchange(
      sieve.port,
      `POST /v1/chat/completions HTTP/1.1\r\nHost: sieve\r\n${headers}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"model":`,
    );
    expect(statusOf(text)).toBe(408);
    expect(closedByServer).toBe(true);
  });
});
