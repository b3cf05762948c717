import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import type { FakeUpstream } from "../support/fake-upstream";
import { startDialectSuite, type DialectSuite } from "./dialect-support";
import { evidenceFor, startSieve, type Tenant, type TestSieve } from "../support/sieve";

let suite: DialectSuite;
let upstream: FakeUpstream;
let sieve: TestSieve;
let tenant: Tenant;

beforeAll(async () => {
  suite = await startDialectSuite("passthrough");
  ({ upstream, sieve, tenant } = suite);
});

afterAll(() => suite.close());

const client = () => new OpenAI({ apiKey: "sk-provider-test", baseURL: `${sieve.url}/v1`, defaultHeaders: tenant.serviceHeaders, maxRetries: 0 });

describe("the rest of the OpenAI surface passes through", () => {
  test("models.list: forwarded with the caller's Authorization and without Sieve's headers; latency headers and an evidence record added", async () => {
    const { data, response } = await client().models.list().withResponse();
    expect(data.data.map((model) => model.id)).toEqual(["gpt-fake"]);
    const seen = upstream.received.at(-1)!;
    expect(seen).toMatchObject({ method: "GET", path: "/v1/models" });
    expect(seen.headers.authorization).toBe("Bearer sk-provider-test");
    expect(Object.keys(seen.headers).filter((name) => name.startsWith("x-service-"))).toEqual([]);
    expect(response.headers.get("x-service-latency-ms")).toMatch(/^\d+$/);
    expect(response.headers.get("x-service-upstream-latency-ms")).toMatch(/^\d+$/);
    const record = await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!);
    expect(record).toMatchObject({ api: "GET /v1/models", status: 200, cache_status: "skip", request_body: null, response_body: null });
    const listed = (await (await fetch(`${sieve.url}/v1/evidence?api=${encodeURIComponent("GET /v1/models")}`, { headers: tenant.serviceHeaders })).json()) as any;
    expect(listed.total).toBeGreaterThan(0);
    expect(new Set(listed.records.map((r: { api: string }) => r.api))).toEqual(new Set(["GET /v1/models"]));
  });

  test("embeddings for a provider model go to the provider (1536 dimensions, not the local 384)", async () => {
    const { data: result, response } = await client().embeddings.create({ model: "text-embedding-3-small", input: "a sentence to embed" }).withResponse();
    expect(result.data[0]!.embedding).toHaveLength(1536);
    expect(await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!)).toMatchObject({ api: "POST /v1/embeddings", model: "text-embedding-3-small" });
    expect(upstream.received.at(-1)).toMatchObject({ method: "POST", path: "/v1/embeddings" });
    expect(JSON.parse(upstream.received.at(-1)!.body)).toMatchObject({ model: "text-embedding-3-small", input: "a sentence to embed" });
  });

  test("embeddings for the local model are answered by Sieve, under its name and the old one", async () => {
    const count = upstream.received.length;
    for (const model of ["sieve-minilm", "all-MiniLM-L6-v2"]) {
      const result = await client().embeddings.create({ model, input: ["first text", "second text"] });
      expect(result.data).toHaveLength(2);
      expect(result.data[0]!.embedding).toHaveLength(384);
      expect(result.model).toBe(model);
    }
    expect(upstream.received.length).toBe(count);
    const bad = await fetch(`${sieve.url}/v1/embeddings`, { method: "POST", headers: { "content-type": "application/json", ...tenant.serviceHeaders }, body: JSON.stringify({ model: "sieve-minilm", input: 5 }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.message).toContain("body.input");
    const invisible = await fetch(`${sieve.url}/v1/embeddings`, {
      method: "POST",
      headers: { "content-type": "application/json", ...tenant.serviceHeaders },
      body: JSON.stringify({ model: "sieve-minilm", input: ["fine", "\u200b\u200d"] }),
    });
    expect(invisible.status).toBe(400);
    expect(((await invisible.json()) as any).error.message).toContain("input[1]: holds no character the model reads");
  });

  test("a multipart file upload is streamed to the provider and a binary download streamed back; no bodies in the evidence", async () => {
    const bytes = new Uint8Array(300_000).map((_, i) => i % 251);
    const { data: file, response } = await client().files.create({ file: await toFile(bytes, "train.jsonl"), purpose: "fine-tune" }).withResponse();
    expect(file).toMatchObject({ id: "file-fake", filename: "train.jsonl", purpose: "fine-tune" });
    expect(file.bytes).toBeGreaterThan(300_000); // the whole multipart body arrived
    expect(upstream.received.at(-1)!.headers["content-type"]).toStartWith("multipart/form-data; boundary=");
    const record = await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!);
    expect(record).toMatchObject({ api: "POST /v1/files", status: 200, request_body: null, response_body: null });

    const content = await client().files.content("file-fake");
    expect(content.headers.get("content-type")).toBe("application/octet-stream");
    expect([...new Uint8Array(await content.arrayBuffer())]).toEqual([0, 1, 2, 250, 251, 252, 253, 254, 255]);
  });

  test("an upload reaches the provider while the client is still sending it (never buffered whole)", async () => {
    const arrived = upstream.arrivals.length;
    let finish!: () => void;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('{"model":"text-embedding-3-small","input":'));
        await new Promise<void>((resolve) => (finish = resolve));
        controller.enqueue(new TextEncoder().encode('"late half"}'));
        controller.close();
      },
    });
    const pending = fetch(`${sieve.url}/v1/audio/transcriptions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-provider-test", ...tenant.serviceHeaders },
      body,
      duplex: "half",
    } as RequestInit);
    for (let i = 0; i < 250 && upstream.arrivals.length === arrived; i++) await Bun.sleep(20);
    expect(upstream.arrivals.slice(arrived)).toEqual(["/v1/audio/transcriptions"]); // arrived before the client's body ended
    finish();
    expect((await pending).status).toBe(404);
    expect(upstream.received.at(-1)!.body).toBe('{"model":"text-embedding-3-small","input":"late half"}');
  });

  test("query strings pass; provider errors pass through with their status", async () => {
    const response = await fetch(`${sieve.url}/v1/nothing/here?limit=3`, { headers: { authorization: "Bearer sk-provider-test", ...tenant.serviceHeaders } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error.message).toContain("fake provider: no route GET /v1/nothing/here");
    expect(upstream.received.at(-1)!.path).toBe("/v1/nothing/here?limit=3");
  });

  test("Sieve's own /v1 endpoints keep their paths; unknown paths under them are 404 here, never forwarded", async () => {
    const count = upstream.received.length;
    const patterns = await fetch(`${sieve.url}/v1/firewall/patterns`, { headers: tenant.serviceHeaders });
    expect(patterns.status).toBe(200);
    for (const path of ["/v1/firewall/nope", "/v1/cache/nope", "/v1/evidence/a/b"]) {
      const response = await fetch(`${sieve.url}${path}`, { headers: tenant.serviceHeaders });
      expect(response.status).toBe(404);
    }
    expect(upstream.received.length).toBe(count);
  });

  test("without Sieve's headers nothing is forwarded: 401", async () => {
    const count = upstream.received.length;
    const response = await fetch(`${sieve.url}/v1/models`, { headers: { authorization: "Bearer sk-provider-test" } });
    expect(response.status).toBe(401);
    expect(upstream.received.length).toBe(count);
  });

  test("an unreachable provider → 502 naming the problem", async () => {
    const other = await startSieve({ upstreamUrl: "http://127.0.0.1:9/v1", upstreamTimeoutMs: 1500 });
    try {
      const own = await other.tenant();
      const response = await fetch(`${other.url}/v1/models`, { headers: own.serviceHeaders });
      expect(response.status).toBe(502);
      expect(((await response.json()) as any).error.code).toBe("upstream_unreachable");
    } finally {
      await other.close();
    }
  });
});
