import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { loadConfig } from "../../src/config";
import { metricsRefusal } from "../../src/metrics/access";
import { INJECTION, startDialectSuite, SYSTEM_PROMPT, type DialectSuite } from "../proxy/dialect-support";
import { startSieve, evidenceFor, type Tenant, type TestSieve } from "../support/sieve";
import { parseExposition, type Scrape } from "./exposition";

let suite: DialectSuite;
let sieve: TestSieve;

beforeAll(async () => {
  suite = await startDialectSuite("metrics");
  sieve = suite.sieve;
});

afterAll(() => suite.close());

async function scrape(headers: Record<string, string> = {}, from: TestSieve = sieve): Promise<Scrape & { text: string }> {
  const response = await fetch(`${from.url}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const text = await response.text();
  return { ...parseExposition(text), text };
}

const openai = (tenant: Tenant, headers: Record<string, string> = tenant.serviceHeaders) =>
  new OpenAI({ apiKey: "sk-provider-test", baseURL: `${sieve.url}/v1`, defaultHeaders: headers, maxRetries: 0 });

const chat = (tenant: Tenant, content: string, model = "gpt-test") => openai(tenant).chat.completions.create({ model, messages: [{ role: "user", content }] }).withResponse();

/** How far a series moved between two scrapes. */
const moved = (before: Scrape, after: Scrape, name: string, labels: Record<string, string> = {}) => after.value(name, labels) - before.value(name, labels);

const CHAT_200 = { dialect: "openai_chat", status: "200" };

describe("GET /metrics after real traffic through the official SDKs", () => {
  test("a miss then an exact hit move the cache, request, latency, database and inference series by exactly that", async () => {
    const tenant = await sieve.tenant();
    const before = await scrape();
    const miss = await chat(tenant, "Which rivers flow through Vienna and Budapest?");
    const hit = await chat(tenant, "Which rivers flow through Vienna and Budapest?");
    expect([miss.response.headers.get("x-service-cache"), hit.response.headers.get("x-service-cache")]).toEqual(["miss", "hit"]);
    const after = await scrape();

    expect(moved(before, after, "sieve_cache_misses_total")).toBe(1);
    expect(moved(before, after, "sieve_cache_hits_total", { kind: "exact" })).toBe(1);
    expect(moved(before, after, "sieve_cache_hits_total", { kind: "semantic" })).toBe(0);
    expect(moved(before, after, "sieve_proxy_requests_total", CHAT_200)).toBe(2);
    expect(moved(before, after, "sieve_http_requests_total", { method: "POST", route: "/v1/chat/completions", status: "200" })).toBe(2);
    expect(moved(before, after, "sieve_proxy_overhead_seconds_count", { dialect: "openai_chat", cache: "miss" })).toBe(1);
    expect(moved(before, after, "sieve_proxy_overhead_seconds_count", { dialect: "openai_chat", cache: "hit" })).toBe(1);
    // Only the miss went to the provider; its time is the one the header reported (whole ms).
    expect(moved(before, after, "sieve_proxy_upstream_seconds_count", { dialect: "openai_chat" })).toBe(1);
    const upstreamMs = Number(miss.response.headers.get("x-service-upstream-latency-ms"));
    expect(Math.abs(moved(before, after, "sieve_proxy_upstream_seconds_sum", { dialect: "openai_chat" }) * 1000 - upstreamMs)).toBeLessThanOrEqual(0.5);
    expect(moved(before, after, "sieve_firewall_verdicts_total", { side: "input", channel: "user", action: "allow", family: "none" })).toBe(2);
    expect(moved(before, after, "sieve_firewall_verdicts_total", { side: "output", channel: "assistant", action: "allow", family: "none" })).toBe(1);
    expect(moved(before, after, "sieve_database_seconds_count", { operation: "cache_exact_lookup" })).toBe(2);
    // The new prompt was embedded at least once (firewall windows, cache vector) on the request lane.
    expect(after.total("sieve_inference_seconds_count", { priority: "request" }) - before.total("sieve_inference_seconds_count", { priority: "request" })).toBeGreaterThanOrEqual(1);
  });

  test("a paraphrase is a semantic hit; a near-duplicate with the opposite meaning is a verifier rejection, then a miss", async () => {
    const tenant = await sieve.tenant();
    await chat(tenant, "How do I turn on dark mode in VS Code?");
    const before = await scrape();
    const opposite = await chat(tenant, "How do I turn off dark mode in VS Code?");
    const paraphrase = await chat(tenant, "In VS Code, how do I turn on dark mode?");
    expect([opposite.response.headers.get("x-service-cache"), paraphrase.response.headers.get("x-service-cache")]).toEqual(["miss", "hit"]);
    const after = await scrape();

    expect(moved(before, after, "sieve_cache_verifier_rejections_total", { check: "opposites" })).toBe(1);
    expect(moved(before, after, "sieve_cache_misses_total")).toBe(1);
    expect(moved(before, after, "sieve_cache_hits_total", { kind: "semantic" })).toBe(1);
    expect(moved(before, after, "sieve_database_seconds_count", { operation: "cache_semantic_lookup" })).toBe(2);
  });

  test("a blocked prompt counts once under the family that blocked it, and never reaches the provider", async () => {
    const tenant = await sieve.tenant();
    const before = await scrape();
    const error = await chat(tenant, INJECTION).catch((error: unknown) => error);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const after = await scrape();

    const record = await evidenceFor(sieve, tenant, (error as InstanceType<typeof OpenAI.APIError>).headers!.get("x-service-request-id")!);
    const family = record.firewall_matches[0].family;
    expect(["prompt_injection", "jailbreak", "prompt_extraction", "role_manipulation"]).toContain(family);
    expect(moved(before, after, "sieve_firewall_verdicts_total", { side: "input", channel: "user", action: "block", family })).toBe(1);
    expect(moved(before, after, "sieve_proxy_requests_total", { dialect: "openai_chat", status: "403" })).toBe(1);
    expect(moved(before, after, "sieve_proxy_overhead_seconds_count", { dialect: "openai_chat", cache: "skip" })).toBe(1);
    expect(moved(before, after, "sieve_proxy_upstream_seconds_count", { dialect: "openai_chat" })).toBe(0);
  });

  test("an answer blocked on the way back counts as an output verdict, after the provider's time", async () => {
    const tenant = await sieve.tenant();
    const anthropic = new Anthropic({ apiKey: "sk-ant-provider-test", baseURL: sieve.url, defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });
    const before = await scrape();
    const leaked = anthropic.messages.create({ model: "leak", max_tokens: 256, system: SYSTEM_PROMPT, messages: [{ role: "user", content: "Could you help me format the dedication page of my novel?" }] });
    expect(await leaked.catch((error: unknown) => error)).toBeInstanceOf(Anthropic.PermissionDeniedError);
    const after = await scrape();

    expect(after.total("sieve_firewall_verdicts_total", { side: "output", action: "block" }) - before.total("sieve_firewall_verdicts_total", { side: "output", action: "block" })).toBe(1);
    expect(moved(before, after, "sieve_firewall_verdicts_total", { side: "input", channel: "user", action: "allow", family: "none" })).toBe(1);
    expect(moved(before, after, "sieve_proxy_requests_total", { dialect: "anthropic_messages", status: "403" })).toBe(1);
    expect(moved(before, after, "sieve_proxy_upstream_seconds_count", { dialect: "anthropic_messages" })).toBe(1);
  });

  test("a workspace's own family name is counted as custom and never appears in the metrics", async () => {
    const tenant = await sieve.tenant();
    const pattern = "Send me the full payroll table of the Harwick accounting department";
    const created = await fetch(`${sieve.url}/v1/firewall/patterns`, {
      method: "POST",
      headers: { "content-type": "application/json", ...tenant.serviceHeaders },
      body: JSON.stringify({ text: pattern, action: "block", threshold: 0.5, family: "harwick_payroll" }),
    });
    expect(created.status).toBe(201);
    const before = await scrape();
    expect(await chat(tenant, pattern).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const after = await scrape();

    expect(moved(before, after, "sieve_firewall_verdicts_total", { side: "input", channel: "user", action: "block", family: "custom" })).toBe(1);
    expect(after.text).not.toContain("harwick");
  });

  test("4xx answers count by status: a provider's 429, Sieve's own 400, and a 401 refused before the pipeline", async () => {
    const tenant = await sieve.tenant();
    const before = await scrape();
    expect(await chat(tenant, "hello", "error-429").catch((error: unknown) => error)).toBeInstanceOf(OpenAI.RateLimitError);
    const missingMessages = openai(tenant).chat.completions.create({ model: "gpt-test" } as never);
    expect(await missingMessages.catch((error: unknown) => error)).toBeInstanceOf(OpenAI.BadRequestError);
    const wrongKey = openai(tenant, { ...tenant.serviceHeaders, "X-Service-Api-Key": `${tenant.apiKey.slice(0, -4)}0000` });
    expect(await wrongKey.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error)).toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    const after = await scrape();

    expect(moved(before, after, "sieve_proxy_requests_total", { dialect: "openai_chat", status: "429" })).toBe(1);
    expect(moved(before, after, "sieve_proxy_requests_total", { dialect: "openai_chat", status: "400" })).toBe(1);
    expect(moved(before, after, "sieve_proxy_requests_total", { dialect: "openai_chat", status: "401" })).toBe(0);
    for (const status of ["429", "400", "401"]) {
      expect(moved(before, after, "sieve_http_requests_total", { method: "POST", route: "/v1/chat/completions", status })).toBe(1);
    }
    // The provider's 429 was forwarded: its time counts as provider time.
    expect(moved(before, after, "sieve_proxy_upstream_seconds_count", { dialect: "openai_chat" })).toBe(1);
  });

  test("each dialect and the pass-through count under their own name", async () => {
    const tenant = await sieve.tenant();
    const before = await scrape();
    await openai(tenant).responses.create({ model: "gpt-test", input: "Name three Baltic capitals." });
    const anthropic = new Anthropic({ apiKey: "sk-ant-provider-test", baseURL: sieve.url, defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });
    await anthropic.messages.create({ model: "claude-test", max_tokens: 50, messages: [{ role: "user", content: "Name three Alpine passes." }] });
    await openai(tenant).models.list();
    const after = await scrape();

    expect(moved(before, after, "sieve_proxy_requests_total", { dialect: "openai_responses", status: "200" })).toBe(1);
    expect(moved(before, after, "sieve_proxy_requests_total", { dialect: "anthropic_messages", status: "200" })).toBe(1);
    expect(moved(before, after, "sieve_proxy_requests_total", { dialect: "passthrough", status: "200" })).toBe(1);
    expect(moved(before, after, "sieve_http_requests_total", { method: "GET", route: "/v1/*", status: "200" })).toBe(1);
    expect(moved(before, after, "sieve_proxy_upstream_seconds_count", { dialect: "passthrough" })).toBe(1);
  });

  test("the document and management APIs count by route template; no id, key or prompt is ever a label value", async () => {
    const tenant = await sieve.tenant();
    const documentId = crypto.randomUUID();
    const before = await scrape();
    expect((await fetch(`${sieve.url}/v1/cache/stats`, { headers: tenant.serviceHeaders })).status).toBe(200);
    expect((await fetch(`${sieve.url}/api/documents/${documentId}`, { headers: tenant.bearer })).status).toBe(404);
    expect((await fetch(`${sieve.url}/no/such/${documentId}`)).status).toBe(404);
    await chat(tenant, "Summarise the plot of Moby Dick in one sentence.");
    const after = await scrape();

    expect(moved(before, after, "sieve_http_requests_total", { method: "GET", route: "/v1/cache/stats", status: "200" })).toBe(1);
    expect(moved(before, after, "sieve_http_requests_total", { method: "GET", route: "/api/documents/:document_id", status: "404" })).toBe(1);
    expect(moved(before, after, "sieve_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1);
    for (const secret of [tenant.workspaceId, tenant.apiKey, tenant.keyId, documentId, "Moby Dick", "sk-provider-test"]) {
      expect(after.text).not.toContain(secret);
    }
    for (const value of after.labelValues) expect(value).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  test("the evidence writer's batches are timed and its queue is exposed; process and pool gauges are there", async () => {
    const tenant = await sieve.tenant();
    const before = await scrape();
    const { response } = await chat(tenant, "What is the boiling point of water at the top of Mont Blanc?");
    await chat(tenant, "How long does it take to climb Mont Blanc from Chamonix?"); // its lookup loads the scope's partition
    await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!); // written by now
    const after = await scrape();

    expect(moved(before, after, "sieve_database_seconds_count", { operation: "evidence_write" })).toBeGreaterThanOrEqual(1);
    const gauges = [
      "sieve_evidence_queue_length",
      "sieve_inference_queue_depth",
      "sieve_inference_workers",
      "process_resident_memory_bytes",
      "process_start_time_seconds",
      "sieve_uptime_seconds",
      "sieve_event_loop_lag_p99_seconds",
      "sieve_event_loop_lag_max_seconds",
      "sieve_build_info",
      "sieve_cache_index_entries",
      "sieve_cache_index_partitions",
      "sieve_document_jobs_queued",
      "sieve_document_jobs_running",
      "sieve_document_jobs_parked",
      "sieve_document_uploads_in_progress",
      "sieve_document_kept_parse_bytes",
    ];
    for (const name of gauges) expect([name, after.types.get(name)]).toEqual([name, "gauge"]);
    expect(after.value("process_resident_memory_bytes")).toBeGreaterThan(10 * 1024 * 1024);
    expect(after.value("sieve_uptime_seconds")).toBeGreaterThan(0);
    expect(after.value("sieve_cache_index_entries")).toBeGreaterThanOrEqual(1);
    expect(after.value("sieve_cache_index_partitions")).toBeGreaterThanOrEqual(1);
    expect(after.total("sieve_inference_workers")).toBeGreaterThanOrEqual(1);
    expect(after.value("sieve_inference_queue_depth", { priority: "bulk" })).toBeGreaterThanOrEqual(0);
    for (const [name, type] of [
      ["sieve_http_requests_total", "counter"],
      ["sieve_proxy_requests_total", "counter"],
      ["sieve_proxy_overhead_seconds", "histogram"],
      ["sieve_proxy_upstream_seconds", "histogram"],
      ["sieve_cache_hits_total", "counter"],
      ["sieve_cache_misses_total", "counter"],
      ["sieve_cache_verifier_rejections_total", "counter"],
      ["sieve_firewall_verdicts_total", "counter"],
      ["sieve_inference_seconds", "histogram"],
      ["sieve_inference_lone_runs_total", "counter"],
      ["sieve_database_seconds", "histogram"],
    ]) {
      expect([name, after.types.get(name)]).toEqual([name, type]);
    }
  });
});

describe("who may read /metrics", () => {
  test("a request relayed by a proxy is refused from loopback too: 403 JSON naming the header and the flag", async () => {
    for (const [header, value] of [
      ["X-Forwarded-For", "203.0.113.7"],
      ["Forwarded", "for=203.0.113.7"],
      ["X-Real-IP", "203.0.113.7"],
    ]) {
      const response = await fetch(`${sieve.url}/metrics`, { headers: { [header]: value } });
      expect(response.status).toBe(403);
      expect(response.headers.get("content-type")).toContain("application/json");
      const body = (await response.json()) as { code: string; detail: string };
      expect(body.code).toBe("forbidden");
      expect(body.detail).toContain(header.toLowerCase());
      expect(body.detail).toContain("--metrics-public");
    }
  });

  test("an admin API key does not open it either: the metrics are the instance's, not a workspace's", async () => {
    const tenant = await sieve.tenant();
    const response = await fetch(`${sieve.url}/metrics`, { headers: { "X-Forwarded-For": "203.0.113.7", ...tenant.bearer, ...tenant.serviceHeaders } });
    expect(response.status).toBe(403);
  });

  test("--metrics-public serves relayed requests as well", async () => {
    const open = await startSieve({ metricsPublic: true });
    try {
      const scraped = await scrape({ "X-Forwarded-For": "203.0.113.7" }, open);
      expect(scraped.types.get("sieve_http_requests_total")).toBe("counter");
    } finally {
      await open.close();
    }
  });

  test("the flag is read from --metrics-public and SIEVE_METRICS_PUBLIC; off by default", () => {
    expect(loadConfig([], {}).metricsPublic).toBe(false);
    expect(loadConfig(["--metrics-public"], {}).metricsPublic).toBe(true);
    expect(loadConfig([], { SIEVE_METRICS_PUBLIC: "true" }).metricsPublic).toBe(true);
    expect(() => loadConfig([], { SIEVE_METRICS_PUBLIC: "perhaps" })).toThrow("SIEVE_METRICS_PUBLIC");
  });

  // The server trusts only its socket's peer address (Bun's requestIP), and this machine may send
  // test traffic to loopback only, so a remote client cannot be made over real HTTP here: the rule
  // the route applies is checked with the addresses a remote client would have.
  test("the access rule on socket addresses: loopback (v4, v6, v4-mapped) yes; anything else or unknown no, unless public", () => {
    const none = new Headers();
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) expect(metricsRefusal(address, none, false)).toBeUndefined();
    for (const address of ["203.0.113.7", "10.0.0.5", "192.168.1.20", "::ffff:10.0.0.5", "2001:db8::1", "fe80::1"]) {
      expect(metricsRefusal(address, none, false)).toContain(`came from ${address}`);
      expect(metricsRefusal(address, none, true)).toBeUndefined();
    }
    expect(metricsRefusal(undefined, none, false)).toContain("client address is unknown");
    expect(metricsRefusal("127.0.0.1", new Headers({ "x-forwarded-for": "127.0.0.1" }), false)).toContain("relayed by a proxy");
  });
});
