import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { flushEvidence, evidenceFor, startSieve, tempDir, type Tenant, type TestSieve } from "../support/sieve";

let upstream: FakeUpstream;
let sieve: TestSieve;
let tenant: Tenant;

/** The operator's prices for the fake's "usage-detail" model: $1 in, $0.50 cached in, $2 out per million. */
const PRICES = `prices:
  usage-detail:
    input_per_mtok: 1
    cached_input_per_mtok: 0.5
    output_per_mtok: 2
`;
/** 30 uncached input tokens at $1, 20 cached at $0.50, 30 output at $2, per million. */
const USAGE_DETAIL_COST = (30 * 1 + 20 * 0.5 + 30 * 2) / 1e6;

beforeAll(async () => {
  upstream = startFakeUpstream();
  const config = join(tempDir(), "sieve.yaml");
  writeFileSync(config, PRICES);
  sieve = await startSieve({ upstreamUrl: upstream.url, anthropicUpstreamUrl: upstream.anthropicUrl, config, firewall: false });
  tenant = await sieve.tenant();
});

afterAll(async () => {
  await sieve.close();
  await upstream.stop();
});

const openai = () => new OpenAI({ apiKey: "sk-provider-test", baseURL: `${sieve.url}/v1`, defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: "sk-ant-provider-test", baseURL: sieve.url, defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });
const noCache = { "X-Service-Cache-Control": "no-store" };

describe("usage from the provider's own fields", () => {
  test("chat completions: input, output, cached and reasoning tokens, priced at the operator's price", async () => {
    const { response } = await openai().chat.completions.create({ model: "usage-detail", messages: [{ role: "user", content: "count me" }] }, { headers: noCache }).withResponse();
    const evidence = await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!);
    expect(evidence.usage).toEqual({ prompt_tokens: 50, completion_tokens: 30, total_tokens: 80, cached_tokens: 20, reasoning_tokens: 10, estimated: false });
    expect(evidence.cost_usd).toBeCloseTo(USAGE_DETAIL_COST, 12);
  });

  test("Responses API, whole and streamed", async () => {
    const { response } = await openai().responses.create({ model: "usage-detail", input: "count me too" }, { headers: noCache }).withResponse();
    const whole = await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!);
    expect(whole.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 30, cached_tokens: 20, reasoning_tokens: 10, estimated: false });
    const { data: stream, response: streamed } = await openai().responses.create({ model: "usage-detail", input: "stream me", stream: true }, { headers: noCache }).withResponse();
    for await (const _event of stream);
    const fromStream = await evidenceFor(sieve, tenant, streamed.headers.get("x-service-request-id")!);
    expect(fromStream.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 30, cached_tokens: 20, reasoning_tokens: 10 });
    expect(fromStream.cost_usd).toBeCloseTo(USAGE_DETAIL_COST, 12);
  });

  test("Anthropic Messages: cache reads are input tokens too (input_tokens leaves them out)", async () => {
    const { response } = await anthropic().messages.create({ model: "usage-detail", max_tokens: 50, messages: [{ role: "user", content: "count me" }] }, { headers: noCache }).withResponse();
    const whole = await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!);
    expect(whole.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 30, cached_tokens: 20 });
    expect(whole.cost_usd).toBeCloseTo(USAGE_DETAIL_COST, 12);
    const { data: stream, response: streamed } = await anthropic().messages.create({ model: "usage-detail", max_tokens: 50, stream: true, messages: [{ role: "user", content: "stream me" }] }, { headers: noCache }).withResponse();
    for await (const _event of stream);
    const fromStream = await evidenceFor(sieve, tenant, streamed.headers.get("x-service-request-id")!);
    expect(fromStream.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 30, cached_tokens: 20 });
  });

  test("a catalogued model is priced from genai-prices (gpt-4o: $2.50 in, $10 out per million)", async () => {
    const { data, response } = await openai().chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "price me" }] }, { headers: noCache }).withResponse();
    const evidence = await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!);
    const { prompt_tokens, completion_tokens } = data.usage!;
    expect(evidence.cost_usd).toBeCloseTo((prompt_tokens * 2.5 + completion_tokens * 10) / 1e6, 12);
  });

  test("a model neither the catalogue nor the operator prices has no cost, not a guess", async () => {
    const { response } = await openai().chat.completions.create({ model: "my-own-llama", messages: [{ role: "user", content: "hello" }] }, { headers: noCache }).withResponse();
    const evidence = await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!);
    expect(evidence.usage.prompt_tokens).toBe(5);
    expect(evidence.cost_usd).toBeNull();
  });
});

describe("pass-through answers: metered where the body states usage", () => {
  test("provider embeddings through the SDK: the answer arrives unchanged, its usage and catalogue price are in the evidence", async () => {
    const { data, response } = await openai().embeddings.create({ model: "text-embedding-3-small", input: "meter me" }).withResponse();
    expect(data.data[0]!.embedding).toHaveLength(1536);
    expect(data.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    const evidence = await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!);
    expect(evidence.api).toBe("POST /v1/embeddings");
    expect(evidence.usage).toMatchObject({ prompt_tokens: 3, total_tokens: 3, estimated: false });
    // text-embedding-3-small: $0.02 per million input tokens.
    expect(evidence.cost_usd).toBeCloseTo((3 * 0.02) / 1e6, 12);
  });

  test("an answer without usage (the model list) is recorded without tokens or cost", async () => {
    const list = await openai().models.list().withResponse();
    const evidence = await evidenceFor(sieve, tenant, list.response.headers.get("x-service-request-id")!);
    expect(evidence.api).toBe("GET /v1/models");
    expect(evidence.usage).toBeNull();
    expect(evidence.cost_usd).toBeNull();
  });
});

describe("chat streams: usage asked for, never shown to a client that did not ask", () => {
  test("without include_usage the SDK sees no usage chunk, the raw stream has no usage at all, and the evidence has it", async () => {
    const { data: stream, response } = await openai().chat.completions.create({ model: "usage-detail", stream: true, messages: [{ role: "user", content: "stream without usage" }] }, { headers: noCache }).withResponse();
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((chunk) => chunk.choices.length > 0 && !("usage" in chunk))).toBe(true);
    expect(upstream.received.at(-1)!.body).toContain('"stream_options":{"include_usage":true}');
    const evidence = await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!);
    expect(evidence.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 30, cached_tokens: 20, reasoning_tokens: 10 });

    // Byte for byte what the provider sends a client that did not ask (ids aside).
    const body = JSON.stringify({ model: "usage-detail", stream: true, messages: [{ role: "user", content: "raw bytes" }] });
    const headers = { "content-type": "application/json", authorization: "Bearer sk-provider-test" };
    const viaSieve = await (await fetch(`${sieve.url}/v1/chat/completions`, { method: "POST", headers: { ...headers, ...tenant.serviceHeaders, ...noCache }, body })).text();
    const direct = await (await fetch(`${upstream.url}/chat/completions`, { method: "POST", headers, body })).text();
    const withoutIds = (text: string) => text.replaceAll(/chatcmpl-fake-\d+/g, "ID");
    expect(viaSieve).not.toContain('"usage"');
    expect(withoutIds(viaSieve)).toBe(withoutIds(direct));
  });

  test("with include_usage the client gets the provider's usage chunk as sent", async () => {
    const stream = await openai().chat.completions.create({ model: "usage-detail", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "stream with usage" }] }, { headers: noCache });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 30 });
    expect(upstream.received.at(-1)!.body).toContain('"stream_options":{"include_usage":true}');
  });
});

describe("estimates and savings", () => {
  test("a provider that gives no usage: counted with the tokenizer and marked estimated", async () => {
    const { response } = await openai().chat.completions.create({ model: "no-usage", messages: [{ role: "user", content: "how many tokens is this question?" }] }, { headers: noCache }).withResponse();
    const evidence = await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!);
    // o200k_base: "how many tokens is this question?" is 7 tokens; the answer "echo: how many tokens is this question?" 9.
    expect(evidence.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 9, estimated: true });
  });

  test("a cache hit costs nothing and records what it saved", async () => {
    const ask = () => openai().chat.completions.create({ model: "usage-detail", messages: [{ role: "user", content: "what does the cache save?" }] }).withResponse();
    const first = await ask();
    expect(first.response.headers.get("x-service-cache")).toBe("miss");
    await evidenceFor(sieve, tenant, first.response.headers.get("x-service-request-id")!);
    let hit = await ask();
    for (let i = 0; i < 50 && hit.response.headers.get("x-service-cache") !== "hit"; i++) {
      await Bun.sleep(20);
      hit = await ask();
    }
    expect(hit.response.headers.get("x-service-cache")).toBe("hit");
    const evidence = await evidenceFor(sieve, tenant, hit.response.headers.get("x-service-request-id")!);
    expect(evidence.cost_usd).toBe(0);
    expect(evidence.saved_cost_usd).toBeCloseTo(USAGE_DETAIL_COST, 12);
  });

  test("Prometheus: tokens and cost by the price's model name, no tenant labels", async () => {
    const text = await (await fetch(`${sieve.url}/metrics`)).text();
    expect(text).toMatch(/sieve_tokens_total\{model="usage-detail",kind="input"\} \d+/);
    expect(text).toMatch(/sieve_tokens_total\{model="gpt-4o",kind="output"\} \d+/);
    expect(text).toMatch(/sieve_cost_usd_total\{model="usage-detail"\} [0-9.e-]+/);
    expect(text).toMatch(/sieve_cache_saved_cost_usd_total\{model="usage-detail"\} [0-9.e-]+/);
    expect(text).not.toContain("my-own-llama");
    expect(text).not.toContain(tenant.workspaceId);
  });
});

describe("GET /api/usage", () => {
  const report = async (query: string) => {
    await flushEvidence(sieve);
    return fetch(`${sieve.url}/api/usage?${query}`, { headers: tenant.bearer });
  };
  const rowsOf = async (query: string): Promise<any[]> => ((await (await report(query)).json()) as { rows: any[] }).rows;

  test("by model: requests, billed tokens, cost and the cache's savings; a model without a price is counted as such", async () => {
    const rows = await rowsOf("group_by=model");
    const detail = rows.find((row) => row.model === "usage-detail")!;
    // Of the usage-detail requests above, one was answered by the cache: its tokens are not billed, its cost is saved.
    expect(detail.cache_hits).toBe(1);
    expect(detail.input_tokens).toBe((detail.requests - 1) * 50);
    expect(detail.output_tokens).toBe((detail.requests - 1) * 30);
    expect(detail.cost_usd).toBeCloseTo((detail.requests - 1) * USAGE_DETAIL_COST, 10);
    expect(detail.saved_cost_usd).toBeCloseTo(USAGE_DETAIL_COST, 12);
    expect(rows.find((row) => row.model === "my-own-llama")).toMatchObject({ requests: 1, cost_usd: 0, unpriced_requests: 1 });
  });

  test("by key (with its name), by API and by UTC day; from/to bound the rows", async () => {
    const byKey = await rowsOf("group_by=key");
    expect(byKey).toEqual([expect.objectContaining({ key: tenant.keyId, key_name: "test-key" })]);
    const byApi = (await rowsOf("group_by=api")).map((row) => row.api).sort();
    expect(byApi).toEqual(["GET /v1/models", "POST /v1/chat/completions", "POST /v1/embeddings", "POST /v1/messages", "POST /v1/responses"]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await rowsOf("group_by=day")).map((row) => row.day)).toEqual([today]);
    expect(await rowsOf("group_by=day&from=2020-01-01&to=2020-02-01")).toEqual([]);
  });

  test("format=csv: a header line and one line per row", async () => {
    const response = await report("group_by=api&format=csv");
    expect(response.headers.get("content-type")).toContain("text/csv");
    const lines = (await response.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe("api,requests,input_tokens,output_tokens,cached_tokens,reasoning_tokens,cost_usd,saved_cost_usd,cache_hits,unpriced_requests");
    expect(lines).toHaveLength(6);
  });

  test("without group_by it still answers the document totals; bad parameters are a 400 naming them", async () => {
    expect(((await (await report("")).json()) as any).documents).toMatchObject({ documents_uploaded: 0 });
    const badGroup = await report("group_by=colour");
    expect(badGroup.status).toBe(400);
    expect(await badGroup.text()).toContain("group_by");
    const backwards = await report("group_by=day&from=2026-02-01&to=2026-01-01");
    expect(backwards.status).toBe(400);
    expect(await backwards.text()).toContain("from");
  });
});
