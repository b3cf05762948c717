import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { workspaces } from "../../src/tenancy/schema";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { runCli, spawnServe, waitUntilReady } from "../support/process";
import { flushEvidence, evidenceFor as evidenceOf, startSieve, tempDir, type Tenant, type TestSieve } from "../support/sieve";

let upstream: FakeUpstream;
let sieve: TestSieve;
let tenant: Tenant;

beforeAll(async () => {
  upstream = startFakeUpstream();
  sieve = await startSieve({ upstreamUrl: upstream.url, evidenceFlushMs: 20 });
  tenant = await sieve.tenant();
});

afterAll(async () => {
  await sieve.close();
  await upstream.stop();
});

const chat = (t: Tenant, body: object) =>
  fetch(`${sieve.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-secret-provider-key", ...t.serviceHeaders },
    body: JSON.stringify(body),
  });

const evidenceFor = (t: Tenant, requestId: string) => evidenceOf(sieve, t, requestId);

describe("evidence log", () => {
  test("a proxied request gets one durable record with usage, hashes and bodies; never the provider key", async () => {
    const response = await chat(tenant, { model: "m1", messages: [{ role: "user", content: "record me" }] });
    const requestId = response.headers.get("x-service-request-id")!;
    const record = await evidenceFor(tenant, requestId);
    expect(record).toMatchObject({ request_id: requestId, model: "m1", stream: false, status: 200, cache_status: "miss", firewall_action: "allow", key_id: tenant.keyId });
    expect(record.usage.total_tokens).toBeGreaterThan(0);
    expect(record.prompt_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(record.request_body).messages[0].content).toBe("record me");
    expect(JSON.parse(record.response_body).choices[0].message.content).toBe("echo: record me");
    await flushEvidence(sieve);
    const file = readFileSync(join(sieve.dataDir, "sieve.db")).toString("latin1") + readFileSync(join(sieve.dataDir, "sieve.db-wal")).toString("latin1");
    expect(file).toContain("record me");
    expect(file).not.toContain("sk-secret-provider-key");
    expect(sieve.logs.join("\n")).not.toContain("sk-secret-provider-key");
    expect(sieve.logs.join("\n")).not.toContain(tenant.apiKey);
  });

  test("streams are recorded when they end, with the assembled response", async () => {
    const response = await chat(tenant, { model: "m1", messages: [{ role: "user", content: "stream record" }], stream: true });
    await response.text();
    const record = await evidenceFor(tenant, response.headers.get("x-service-request-id")!);
    expect(record.stream).toBe(true);
    expect(JSON.parse(record.response_body).choices[0].message.content).toBe("echo: stream record");
  });

  test("a workspace can turn body logging off", async () => {
    const other = await sieve.tenant("quiet");
    sieve.ctx.database.db.update(workspaces).set({ logBodies: false }).where(eq(workspaces.id, other.workspaceId)).run();
    const response = await chat(other, { model: "m1", messages: [{ role: "user", content: "do not keep" }] });
    const record = await evidenceFor(other, response.headers.get("x-service-request-id")!);
    expect(record.request_body).toBeNull();
    expect(record.response_body).toBeNull();
  });

  test("with the workspace's cache switched off, requests are recorded as cache skip", async () => {
    const nocache = await sieve.tenant("nocache");
    const off = await fetch(`${sieve.url}/v1/cache/settings`, {
      method: "PATCH",
      headers: { "content-type": "application/json", ...nocache.serviceHeaders },
      body: JSON.stringify({ enabled: false }),
    });
    expect(off.status).toBe(200);
    const response = await chat(nocache, { model: "m1", messages: [{ role: "user", content: "no cache here" }] });
    expect(response.headers.get("x-service-cache")).toBe("miss");
    const record = await evidenceFor(nocache, response.headers.get("x-service-request-id")!);
    expect(record.cache_status).toBe("skip");
  });

  test("list filters by status and cache, pages, and never shows another workspace", async () => {
    await chat(tenant, { model: "error-500", messages: [{ role: "user", content: "x" }] });
    await Bun.sleep(80);
    const list = (await (await fetch(`${sieve.url}/v1/evidence?status=500&limit=1`, { headers: tenant.serviceHeaders })).json()) as any;
    expect(list.records.length).toBe(1);
    expect(list.records[0].status).toBe(500);
    expect(list.records[0].request_body).toBeUndefined();
    const stranger = await sieve.tenant("stranger");
    const theirs = (await (await fetch(`${sieve.url}/v1/evidence`, { headers: stranger.serviceHeaders })).json()) as any;
    expect(theirs.total).toBe(0);
    const leaked = await fetch(`${sieve.url}/v1/evidence/${list.records[0].request_id}`, { headers: stranger.serviceHeaders });
    expect(leaked.status).toBe(404);
    const bad = await fetch(`${sieve.url}/v1/evidence?limit=0`, { headers: tenant.serviceHeaders });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).detail).toContain("limit");
    const badTime = await fetch(`${sieve.url}/v1/evidence?since=yesterday`, { headers: tenant.serviceHeaders });
    expect(badTime.status).toBe(400);
  });
});

describe("graceful shutdown", () => {
  test("SIGTERM under load: in-flight requests finish and every answered request has its record", async () => {
    const dataDir = tempDir();
    const created = await runCli(["keys", "create", "--init", "--data-dir", dataDir, "--json"]);
    expect(created.code).toBe(0);
    const { workspace_id, api_key } = JSON.parse(created.stdout);
    const serve = await spawnServe(["--data-dir", dataDir, "--upstream-url", upstream.url, "--evidence-flush-ms", "60000"]);
    await waitUntilReady(serve.url); // the firewall stage needs the model
    const headers = { "content-type": "application/json", "x-service-api-key": api_key, "x-service-workspace-id": workspace_id };
    const send = (i: number) =>
      fetch(`${serve.url}/v1/chat/completions`, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: "slow", stream: true, messages: [{ role: "user", content: `load ${i} a b c d` }] }),
      });
    // Every response has started streaming before the signal: these are truly in flight.
    const started = await Promise.all(Array.from({ length: 40 }, (_, i) => send(i)));
    serve.child.kill("SIGTERM");
    const results = await Promise.all(started.map(async (r) => ({ id: r.headers.get("x-service-request-id"), text: await r.text() })));
    expect(await serve.child.exited).toBe(0);
    for (const result of results) expect(result.text).toContain("[DONE]");
    const db = new Database(join(dataDir, "sieve.db"), { readonly: true });
    const ids = new Set((db.query("select request_id from evidence").all() as { request_id: string }[]).map((r) => r.request_id));
    db.close();
    expect(ids.size).toBe(40);
    for (const result of results) expect(ids.has(result.id!)).toBe(true);
  });
});
