import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startCluster, type PgCluster } from "../../scripts/pg/cluster";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { flushEvidence, evidenceFor, startSieve, type Tenant, type TestSieve } from "../support/sieve";

let upstream: FakeUpstream;
let sieve: TestSieve;
/** The limits' clock: tests move it instead of waiting. 12:00:10 UTC, so the minute resets in 50 s. */
let clock = Date.UTC(2026, 10, 29, 12, 0, 10);
const now = () => clock;

beforeAll(async () => {
  upstream = startFakeUpstream();
  sieve = await startSieve({ upstreamUrl: upstream.url, anthropicUpstreamUrl: upstream.anthropicUrl, firewall: false, cache: false }, { now });
});

afterAll(async () => {
  await sieve.close();
  await upstream.stop();
});

const openai = (tenant: Tenant, base = sieve) => new OpenAI({ apiKey: "sk-provider-test", baseURL: `${base.url}/v1`, defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });
const anthropic = (tenant: Tenant) => new Anthropic({ apiKey: "sk-ant-provider-test", baseURL: sieve.url, defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });
const chat = (tenant: Tenant, base = sieve, model = "usage-detail") => openai(tenant, base).chat.completions.create({ model, messages: [{ role: "user", content: "hello" }] }).withResponse();

async function api(method: string, path: string, tenant: Tenant, body?: unknown, base = sieve) {
  const response = await fetch(`${base.url}${path}`, { method, headers: { "content-type": "application/json", ...tenant.bearer }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
}

/** A raw proxied request, for the 429 body and headers themselves. */
async function raw(tenant: Tenant, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${sieve.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...tenant.serviceHeaders, ...headers }, body: JSON.stringify(body) });
  return { response, body: (await response.json()) as any };
}

describe("hard limits: 429 in the caller's dialect, naming the limit, the amount used and the reset", () => {
  test("requests per minute on the workspace (chat completions), reset when the minute turns", async () => {
    const tenant = await sieve.tenant("rpm");
    expect((await api("PATCH", "/api/workspace", tenant, { limits: { requests_per_minute: 2 } })).body.limits).toEqual({ requests_per_minute: 2 });
    await chat(tenant);
    await chat(tenant);
    const refused = await chat(tenant).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).headers?.get("retry-after")).toBe("50");
    const { response, body } = await raw(tenant, "/v1/chat/completions", { model: "usage-detail", messages: [{ role: "user", content: "x" }] });
    expect(response.status).toBe(429);
    expect(body).toMatchObject({ error: { type: "rate_limit_error", code: "rate_limited" }, limit: "requests_per_minute", limit_scope: "workspace", limit_value: 2, used: 2, reset_at: "2026-11-29T12:01:00.000Z" });
    expect(body.error.message).toContain("requests_per_minute");
    expect(body.request_id).toBe(response.headers.get("x-service-request-id"));
    // The next minute has a new allowance (reading the evidence is one of its requests too).
    await flushEvidence(sieve);
    clock += 60_000;
    expect((await evidenceFor(sieve, tenant, body.request_id)).status).toBe(429);
    expect((await chat(tenant)).response.status).toBe(200);
    clock -= 60_000;
  });

  test("tokens per minute on a key (Responses API): counted when requests end", async () => {
    const admin = await sieve.tenant("tpm");
    const created = await api("POST", "/api/keys", admin, { name: "tpm-key", limits: { tokens_per_minute: 100 } });
    expect(created.status).toBe(201);
    expect(created.body.limits).toEqual({ tokens_per_minute: 100 });
    const key: Tenant = { ...admin, apiKey: created.body.api_key, serviceHeaders: { ...admin.serviceHeaders, "X-Service-Api-Key": created.body.api_key } };
    const respond = () => openai(key).responses.create({ model: "usage-detail", input: "count" }).withResponse();
    // 80 tokens each: the second starts at 80 of 100, the third at 160.
    for (let i = 0; i < 2; i++) await evidenceFor(sieve, admin, (await respond()).response.headers.get("x-service-request-id")!);
    expect(await respond().catch((error: unknown) => error)).toBeInstanceOf(OpenAI.RateLimitError);
    const { response, body } = await raw(key, "/v1/responses", { model: "usage-detail", input: "x" });
    expect(response.status).toBe(429);
    expect(body).toMatchObject({ error: { type: "rate_limit_error", code: "rate_limited" }, limit: "tokens_per_minute", limit_scope: "key", limit_value: 100, used: 160 });
    // The workspace's other keys are not this key's budget.
    expect((await chat(admin)).response.status).toBe(200);
  });

  test("spend per day on a key (Anthropic Messages), set by PATCH /api/keys/{id}, reset the next UTC day", async () => {
    const admin = await sieve.tenant("spend");
    const created = await api("POST", "/api/keys", admin, { name: "spender" });
    const key: Tenant = { ...admin, apiKey: created.body.api_key, serviceHeaders: { ...admin.serviceHeaders, "X-Service-Api-Key": created.body.api_key } };
    // claude-3-5-haiku-latest at catalogue prices ($0.80 in, $4 out per million): a few answers pass $0.00002.
    const patched = await api("PATCH", `/api/keys/${created.body.id}`, admin, { limits: { spend_per_day_usd: 0.00002 } });
    expect(patched.body.limits).toEqual({ spend_per_day_usd: 0.00002 });
    const message = () => anthropic(key).messages.create({ model: "claude-3-5-haiku-latest", max_tokens: 50, messages: [{ role: "user", content: "spend a little money here" }] }).withResponse();
    let refused: unknown;
    for (let i = 0; i < 10 && !refused; i++) {
      try {
        const { response } = await message();
        await evidenceFor(sieve, admin, response.headers.get("x-service-request-id")!);
      } catch (error) {
        refused = error;
      }
    }
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    const { response, body } = await raw(key, "/v1/messages", { model: "claude-3-5-haiku-latest", max_tokens: 5, messages: [{ role: "user", content: "x" }] }, { "anthropic-version": "2023-06-01" });
    expect(response.status).toBe(429);
    expect(body).toMatchObject({ type: "error", error: { type: "rate_limit_error", code: "rate_limited" }, limit: "spend_per_day_usd", limit_scope: "key", limit_value: 0.00002, reset_at: "2026-11-30T00:00:00.000Z" });
    expect(body.used).toBeGreaterThanOrEqual(0.00002);
    expect(body.error.message).toContain("spend_per_day_usd");
    expect(Number(response.headers.get("retry-after"))).toBe((Date.UTC(2026, 10, 30) - clock) / 1000);
    clock += 86_400_000;
    expect((await message()).response.status).toBe(200);
    clock -= 86_400_000;
  });
});

describe("soft limits and settings", () => {
  test("a soft limit lets the request through with a warning header and an evidence flag", async () => {
    const tenant = await sieve.tenant("soft");
    await api("PATCH", "/api/workspace", tenant, { limits: { requests_per_minute: 1, soft: true } });
    expect((await chat(tenant)).response.headers.get("x-service-limit-warning")).toBeNull();
    const { response } = await chat(tenant);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-service-limit-warning")).toBe("requests_per_minute=1/1 (workspace)");
    expect((await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!)).limit_warning).toBe("requests_per_minute");
  });

  test("bad limits are a 400 naming the field and change nothing; a service key cannot change them; null removes one", async () => {
    const tenant = await sieve.tenant("settings");
    const bad = await api("PATCH", "/api/workspace", tenant, { limits: { requests_per_minute: -1 } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("requests_per_minute");
    const unknown = await api("PATCH", "/api/workspace", tenant, { limits: { requests_per_hour: 5 } });
    expect(unknown.status).toBe(400);
    expect((await api("GET", "/api/workspace", tenant)).body.limits).toBeNull();
    const service = await api("POST", "/api/keys", tenant, { name: "svc", role: "service" });
    const asService: Tenant = { ...tenant, bearer: { Authorization: `Bearer ${service.body.api_key}` } };
    expect((await api("PATCH", "/api/workspace", asService, { limits: { requests_per_minute: 1000 } })).status).toBe(403);
    await api("PATCH", "/api/workspace", tenant, { limits: { requests_per_minute: 5, spend_per_month_usd: 10 } });
    expect((await api("PATCH", "/api/workspace", tenant, { limits: { requests_per_minute: null } })).body.limits).toEqual({ requests_per_minute: null, spend_per_month_usd: 10 });
  });
});

describe("a fleet on PostgreSQL shares one budget", () => {
  let cluster: PgCluster;
  let first: TestSieve;
  let second: TestSieve;

  beforeAll(async () => {
    cluster = await startCluster();
    const database = await cluster.createDatabase("usage_fleet");
    const options = { upstreamUrl: upstream.url, firewall: false, cache: false, database };
    first = await startSieve(options, { now });
    second = await startSieve(options, { now });
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    cluster?.stop();
  });

  test("requests per minute across two instances: the third request is refused on either", async () => {
    const tenant = await first.tenant("fleet-rpm");
    await api("PATCH", "/api/workspace", tenant, { limits: { requests_per_minute: 2 } }, first);
    expect((await chat(tenant, first)).response.status).toBe(200);
    expect((await chat(tenant, second)).response.status).toBe(200);
    expect(await chat(tenant, first).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.RateLimitError);
    expect(await chat(tenant, second).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.RateLimitError);
  });

  test("a key's daily spend charged on one instance is refused on the other", async () => {
    const admin = await first.tenant("fleet-spend");
    const created = await api("POST", "/api/keys", admin, { name: "fleet-key", limits: { spend_per_day_usd: 0.00001 } }, first);
    const key: Tenant = { ...admin, apiKey: created.body.api_key, serviceHeaders: { ...admin.serviceHeaders, "X-Service-Api-Key": created.body.api_key } };
    // gpt-4o: 5 input tokens and 3 output cost $0.0000425, past the limit in one request.
    const { response } = await chat(key, first, "gpt-4o");
    await evidenceFor(first, admin, response.headers.get("x-service-request-id")!);
    const refused = await chat(key, second, "gpt-4o").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
  });
});
