import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { SLOW_BODY_MS, startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { evidenceFor, startSieve, type Tenant, type TestSieve } from "../support/sieve";

let upstream: FakeUpstream;
let sieve: TestSieve;
let tenant: Tenant;

beforeAll(async () => {
  upstream = startFakeUpstream();
  sieve = await startSieve({ upstreamUrl: upstream.url, upstreamTimeoutMs: 1500 });
  tenant = await sieve.tenant();
});

afterAll(async () => {
  await sieve.close();
  await upstream.stop();
});

const client = () =>
  new OpenAI({ apiKey: "sk-provider-test", baseURL: `${sieve.url}/v1`, defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${sieve.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-provider-test", ...tenant.serviceHeaders, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

function expectServiceHeaders(response: Response) {
  for (const name of ["x-service-latency-ms", "x-service-upstream-latency-ms"]) {
    const value = response.headers.get(name);
    expect(value).toMatch(/^\d+$/);
  }
  expect(response.headers.get("x-service-cache")).toMatch(/^(hit|miss)$/);
  expect(response.headers.get("x-service-request-id")).toBeTruthy();
}

describe("POST /v1/chat/completions through the openai SDK", () => {
  test("a normal completion comes back typed, and the provider saw exactly the client's body and Authorization", async () => {
    const { data, response } = await client()
      .chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hello there" }], temperature: 0.3, response_format: { type: "text" } })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("echo: hello there");
    expectServiceHeaders(response);
    const seen = upstream.received.at(-1)!;
    expect(seen.headers.authorization).toBe("Bearer sk-provider-test");
    expect(seen.headers["x-service-api-key"]).toBeUndefined();
    expect(JSON.parse(seen.body)).toEqual({ model: "gpt-test", messages: [{ role: "user", content: "hello there" }], temperature: 0.3, response_format: { type: "text" } });
  });

  test("a non-streamed body the provider is slow to send counts as provider time, not as the proxy's overhead", async () => {
    const response = await post({ model: "slow-body", messages: [{ role: "user", content: "take your time with the body" }] });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).choices[0].message.content).toBe("echo: take your time with the body");
    expectServiceHeaders(response);
    expect(Number(response.headers.get("x-service-upstream-latency-ms"))).toBeGreaterThanOrEqual(SLOW_BODY_MS);
    const evidence = await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!);
    expect(evidence.upstream_ms).toBe(Number(response.headers.get("x-service-upstream-latency-ms")));
    expect(evidence.overhead_ms).toBe(Number(response.headers.get("x-service-latency-ms")));
  });

  test("a streamed completion iterates unchanged", async () => {
    const stream = await client().chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "stream this please" }], stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    expect(text).toBe("echo: stream this please");
  });

  test("the first chunk reaches the client while the provider is still sending", async () => {
    const response = await post({ model: "gated", messages: [{ role: "user", content: "one two three" }], stream: true });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes("echo: ")) seen += decoder.decode((await reader.read()).value);
    expect(seen).not.toContain("[DONE]"); // the provider is parked at its gate
    upstream.openGate();
    while (!seen.includes("[DONE]")) {
      const { done, value } = await reader.read();
      if (done) break;
      seen += decoder.decode(value);
    }
    expect(seen).toContain("three");
    expect(seen).toContain("[DONE]");
  });

  test("a provider that drops mid-stream yields an SSE error event and a clean end", async () => {
    const response = await post({ model: "drop", messages: [{ role: "user", content: "one two three four" }], stream: true });
    const text = await response.text();
    expect(text).toContain("event: error");
    const data = text.split("event: error\ndata: ")[1]!.split("\n")[0]!;
    expect(JSON.parse(data).error.type).toBe("upstream_error");
    expect(text).not.toContain("[DONE]");
  });

  test("the SDK surfaces the dropped stream as an error", async () => {
    const stream = await client().chat.completions.create({ model: "drop", messages: [{ role: "user", content: "one two three four" }], stream: true });
    await expect(
      (async () => {
        for await (const _ of stream) {
        }
      })(),
    ).rejects.toThrow();
  });

  test("a stream that ends without [DONE] is reported as an error", async () => {
    const text = await (await post({ model: "no-done", messages: [{ role: "user", content: "a b" }], stream: true })).text();
    expect(text).toContain("event: error");
  });

  test("a client disconnect aborts the provider stream", async () => {
    const before = upstream.aborted();
    const controller = new AbortController();
    const response = await fetch(`${sieve.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...tenant.serviceHeaders },
      body: JSON.stringify({ model: "gated", messages: [{ role: "user", content: "x y z" }], stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    for (let i = 0; i < 50 && upstream.aborted() === before; i++) await Bun.sleep(20);
    upstream.openGate();
    expect(upstream.aborted()).toBeGreaterThan(before);
  });
});

describe("errors", () => {
  test("invalid JSON → 400 naming the problem; nothing forwarded", async () => {
    const count = upstream.received.length;
    const response = await post("{not json");
    expect(response.status).toBe(400);
    expect((await response.json() as any).error).toMatchObject({ type: "invalid_request_error", code: "invalid_json" });
    expect(upstream.received.length).toBe(count);
  });

  test.each([
    [{ messages: [{ role: "user", content: "x" }] }, "body.model"],
    [{ model: "m" }, "body.messages"],
    [{ model: 5, messages: [] }, "body.model"],
    [{ model: "m", messages: "hi" }, "body.messages"],
    [{ model: "m", messages: [{ content: "no role" }] }, "body.messages.0.role"],
    [{ model: "m", messages: [{ role: "user", content: "x" }], stream: "yes" }, "body.stream"],
  ])("%j → 400 naming %s", async (body, field) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect((await response.json() as any).error.message).toContain(field);
  });

  test("a body over the limit → 413", async () => {
    const big = "x".repeat(11 * 1024 * 1024);
    const response = await post({ model: "m", messages: [{ role: "user", content: big }] });
    expect(response.status).toBe(413);
    expect(((await response.json()) as any).error).toMatchObject({ type: "invalid_request_error", code: "payload_too_large" });
  });

  test("provider 4xx/5xx pass through unchanged with our headers", async () => {
    for (const status of [400, 429, 500]) {
      const response = await post({ model: `error-${status}`, messages: [{ role: "user", content: "x" }] });
      expect(response.status).toBe(status);
      expect((await response.json() as any).error.message).toBe(`fake provider error ${status}`);
      expect(response.headers.get("x-request-id")).toBe("fake-req");
      expectServiceHeaders(response);
    }
  });

  test("a stalled provider → 504 after the timeout", async () => {
    const response = await post({ model: "stall", messages: [{ role: "user", content: "x" }] });
    expect(response.status).toBe(504);
    const body = (await response.json()) as any;
    expect(body.error).toMatchObject({ type: "server_error", code: "upstream_timeout" });
    expect(body.request_id).toBeTruthy();
    expectServiceHeaders(response);
  });

  test("an unreachable provider → 502 upstream_unreachable", async () => {
    const dead = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const deadUrl = `http://127.0.0.1:${dead.port}/v1`;
    await dead.stop(true);
    const other = await startSieve({ upstreamUrl: deadUrl });
    const t = await other.tenant();
    try {
      const response = await fetch(`${other.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...t.serviceHeaders },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }),
      });
      expect(response.status).toBe(502);
      const body = (await response.json()) as any;
      expect(body.error.code).toBe("upstream_unreachable");
      expect(body.request_id).toBe(response.headers.get("x-service-request-id"));
    } finally {
      await other.close();
    }
  });
});
