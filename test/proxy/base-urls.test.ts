import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startSieve, type Tenant, type TestSieve } from "../support/sieve";
import { INJECTION } from "./dialect-support";

/** Issue 54, point 6: a wrong base URL, on either side of Sieve, is explained rather than passed through. */
let upstream: FakeUpstream;
/** A provider host whose 404 is plain text, as most web servers answer an unknown path. */
let plainHost: ReturnType<typeof Bun.serve>;
/** Sieve pointed at the fake provider's bare origin (no /v1), and at an Anthropic URL ending in /v1. */
let sieve: TestSieve;
let tenant: Tenant;

beforeAll(async () => {
  upstream = startFakeUpstream();
  plainHost = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("Not Found", { status: 404, headers: { "content-type": "text/plain" } }) });
  sieve = await startSieve({ upstreamUrl: upstream.url.replace(/\/v1$/, ""), anthropicUpstreamUrl: `${upstream.anthropicUrl.replace(/\/$/, "")}/v1`, allowUpstreamHosts: "127.0.0.1" });
  tenant = await sieve.tenant("base-urls");
});

afterAll(async () => {
  await sieve.close();
  plainHost.stop(true);
  await upstream.stop();
});

const openai = (baseURL = `${sieve.url}/v1`, headers = tenant.serviceHeaders) => new OpenAI({ baseURL, apiKey: "sk-provider", defaultHeaders: headers, maxRetries: 0 });
const anthropic = (baseURL = sieve.url) => new Anthropic({ baseURL, apiKey: "sk-ant-provider", defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });
const patch = (t: Tenant, body: unknown) => fetch(`${sieve.url}/api/workspace`, { method: "PATCH", headers: { "content-type": "application/json", ...t.bearer }, body: JSON.stringify(body) });

describe("the provider base URL (Sieve → provider)", () => {
  test("a start with --upstream-url lacking /v1, or --anthropic-upstream-url ending in /v1, logs a warning naming the flag and the fix", () => {
    const warnings = sieve.logs.filter((line) => line.includes("provider base URL looks wrong"));
    expect(warnings.some((line) => line.includes("--upstream-url") && line.includes("has no path"))).toBe(true);
    expect(warnings.some((line) => line.includes("--anthropic-upstream-url") && line.includes("ends in /v1"))).toBe(true);
  });

  test("the provider's JSON 404 is relayed as it came, with X-Service-Hint naming the URL called and the fix", async () => {
    const error = await openai().chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hello" }] }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.message).toContain("fake provider: no route POST /chat/completions");
    const hint = error.headers.get("x-service-hint");
    expect(hint).toContain(`the provider answered 404 for ${upstream.url.replace(/\/v1$/, "")}/chat/completions`);
    expect(hint).toContain("(e.g. https://api.openai.com/v1)");
  });

  test("a 404 no SDK can read (plain text) becomes the dialect's error carrying the hint", async () => {
    const t = await sieve.tenant("plain-404");
    const set = await patch(t, { upstream_url: `http://127.0.0.1:${plainHost.port}` });
    expect(set.status).toBe(200);
    expect(((await set.json()) as any).warnings).toEqual([expect.stringMatching(/^upstream_url: http:\/\/127\.0\.0\.1:\d+ has no path: an OpenAI-compatible base URL ends in its version segment/)]);
    const error = await openai(`${sieve.url}/v1`, t.serviceHeaders).chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hello" }] }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.code).toBe("upstream_not_found");
    expect(error.message).toStartWith(`404 the provider answered 404 for http://127.0.0.1:${plainHost.port}/chat/completions: check the provider base URL (--upstream-url or the workspace's upstream_url)`);
  });

  test("PATCH: a URL with its version segment is accepted without warnings", async () => {
    const t = await sieve.tenant("good-url");
    const set = await patch(t, { upstream_url: `http://127.0.0.1:${plainHost.port}/v1`, anthropic_upstream_url: `http://127.0.0.1:${plainHost.port}` });
    expect(set.status).toBe(200);
    expect(((await set.json()) as any).warnings).toBeUndefined();
  });

  test("a host name that does not resolve is upstream_unreachable (upstream_refused is for disallowed hosts)", async () => {
    const t = await sieve.tenant("no-dns");
    expect((await patch(t, { upstream_url: "http://no-such-provider.invalid/v1" })).status).toBe(200);
    const error = await openai(`${sieve.url}/v1`, t.serviceHeaders).chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hello" }] }).catch((e) => e);
    expect(error.status).toBe(502);
    expect(error.code).toBe("upstream_unreachable");
    expect(error.message).toBe("502 the workspace's upstream host no-such-provider.invalid does not resolve: check the host name in its upstream_url (PATCH /api/workspace)");
  });
});

describe("the client base URL (SDK → Sieve)", () => {
  test("the Anthropic SDK pointed at …/v1 (calls /v1/v1/messages): a 404 naming the fix, nothing forwarded, even an injection", async () => {
    const before = upstream.received.length;
    const error = await anthropic(`${sieve.url}/v1`).messages.create({ model: "claude-test", max_tokens: 16, messages: [{ role: "user", content: INJECTION }] }).catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(error.error).toMatchObject({ type: "error", error: { type: "not_found_error", code: "doubled_version_segment" } });
    expect(error.error.error.message).toBe(`/v1/v1/messages has /v1 twice: the client's base URL already ends in /v1 and its SDK adds another. Use ${sieve.url} as the Anthropic SDK's base URL, ${sieve.url}/v1 as the OpenAI SDK's`);
    expect(upstream.received.length).toBe(before);
  });

  test("the OpenAI SDK pointed at …/v1/v1: the same 404 in OpenAI's shape", async () => {
    const before = upstream.received.length;
    const error = await openai(`${sieve.url}/v1/v1`).chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: INJECTION }] }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.code).toBe("doubled_version_segment");
    expect(error.message).toContain("has /v1 twice");
    expect(upstream.received.length).toBe(before);
  });

  test("the OpenAI SDK pointed at the bare host (calls /chat/completions): a 404 saying to add /v1", async () => {
    const error = await openai(sieve.url).chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hello" }] }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.message).toBe(`404 no such route /chat/completions: Sieve's provider paths start with /v1; use ${sieve.url}/v1 as the OpenAI SDK's base URL (${sieve.url} for the Anthropic SDK)`);
  });
});
