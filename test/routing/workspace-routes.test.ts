/**
 * A workspace's own routes and secrets (PUT /api/routing): validated like the routing file, with
 * the upstream_url rules for every target, secrets sealed at rest and never returned, and routes
 * that apply to that workspace only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { statSync } from "node:fs";
import { join } from "node:path";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { flushEvidence, evidenceFor, startSieve, storedText, type Tenant, type TestSieve } from "../support/sieve";

const SECRET = "sk-workspace-secret-5e5e5e5e5e5e5e5e";

let primary: FakeUpstream;
let backup: FakeUpstream;
let sieve: TestSieve;
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  primary = startFakeUpstream();
  backup = startFakeUpstream();
  // The fakes listen on loopback: the operator allows it for workspaces' own targets.
  sieve = await startSieve({ cache: false, allowUpstreamHosts: "127.0.0.1", evidenceFlushMs: 20 });
  tenant = await sieve.tenant("own-routes");
  other = await sieve.tenant("no-routes");
});
afterAll(async () => {
  await sieve.close();
  await primary.stop();
  await backup.stop();
});

const api = (method: string, path: string, body?: unknown, who: Record<string, string> = tenant.bearer) =>
  fetch(`${sieve.url}/api/routing${path}`, { method, headers: { ...who, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });

const routes = () => ({
  targets: [
    { name: "main", kind: "openai", base_url: primary.url, api_key: "secret:provider-key", models: { "own-model": "error-503" } },
    { name: "spare", kind: "openai-compatible", base_url: backup.url, api_key: "secret:provider-key" },
  ],
  routes: [{ match: "own-*", targets: ["main", "spare"], retry: { attempts: 0 } }],
});

const ask = (who: Tenant, model: string) =>
  new OpenAI({ apiKey: "sk-caller", baseURL: `${sieve.url}/v1`, defaultHeaders: who.serviceHeaders, maxRetries: 0 }).chat.completions.create({ model, messages: [{ role: "user", content: "hello there" }] }).withResponse();

describe("workspace routes and secrets", () => {
  test("a service key may not change routes or secrets", async () => {
    const made = await fetch(`${sieve.url}/api/keys`, { method: "POST", headers: { ...tenant.bearer, "content-type": "application/json" }, body: JSON.stringify({ name: "svc", role: "service" }) });
    const service = { Authorization: `Bearer ${((await made.json()) as { api_key: string }).api_key}` };
    expect((await api("PUT", "/", routes(), service)).status).toBe(403);
    expect((await api("PUT", "/secrets/provider-key", { value: SECRET }, service)).status).toBe(403);
  });

  test("bodies are bounded while they arrive: 413 past 128 KiB for a secret and 1 MiB for routes", async () => {
    const secret = await api("PUT", "/secrets/big", { value: "x".repeat(200 * 1024) });
    expect(secret.status).toBe(413);
    const routesBody = await api("PUT", "/", { targets: [], padding: "x".repeat(1024 * 1024) });
    expect(routesBody.status).toBe(413);
    expect(((await (await api("GET", "/")).json()) as { secrets: string[] }).secrets).toEqual([]);
  });

  test("routes naming a secret that is not stored, an env: reference or a private address are refused, naming the field", async () => {
    const refused = async (body: unknown) => {
      const response = await api("PUT", "/", body);
      expect(response.status).toBe(400);
      return ((await response.json()) as { detail: string }).detail;
    };
    expect(await refused(routes())).toContain('body.targets[0].api_key: no secret named "provider-key" is stored');
    const withEnv = routes();
    withEnv.targets[0]!.api_key = "env:OPENAI_API_KEY";
    expect(await refused(withEnv)).toContain("body.targets[0].api_key: write secret:NAME");
    const internal = routes();
    internal.targets[1]!.base_url = "http://10.0.0.8/v1";
    expect(await refused(internal)).toContain("body.targets[1].base_url:");
    expect(await refused({ ...routes(), routes: [{ match: "x", targets: ["nope"] }] })).toContain('body.routes[0].targets[0]: no target is named "nope"');
    expect(((await (await api("GET", "/")).json()) as { routing: unknown }).routing).toBeNull();
  });

  test("a secret is sealed at rest and never returned; routes using it serve the workspace with fallback", async () => {
    const stored = await api("PUT", "/secrets/provider-key", { value: SECRET });
    expect(stored.status).toBe(200);
    const storedText_ = await stored.text();
    expect(storedText_).not.toContain(SECRET);
    expect(JSON.parse(storedText_).secrets).toEqual(["provider-key"]);
    expect(statSync(join(sieve.dataDir, "secret.key")).mode & 0o777).toBe(0o600);

    const saved = await api("PUT", "/", routes());
    expect(saved.status).toBe(200);
    const { data, response } = await ask(tenant, "own-model");
    expect(data.choices[0]!.message.content).toBe("echo: hello there");
    expect(response.headers.get("x-service-target")).toBe("spare");
    expect(backup.received.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(primary.received.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
    const record = await evidenceFor(sieve, tenant, response.headers.get("x-service-request-id")!);
    expect(record.attempts.map((a: { target: string; status: number }) => [a.target, a.status])).toEqual([
      ["main", 503],
      ["spare", 200],
    ]);

    // The view names targets and their health, never a value.
    const view = await (await api("GET", "/")).text();
    expect(view).not.toContain(SECRET);
    expect(JSON.parse(view).targets).toEqual([
      { name: "main", kind: "openai", breaker: "closed", retry_in_ms: 0 },
      { name: "spare", kind: "openai-compatible", breaker: "closed", retry_in_ms: 0 },
    ]);
    // Tenant target names stay out of the metrics' label values.
    const metrics = await (await fetch(`${sieve.url}/metrics`)).text();
    expect(metrics).toContain('sieve_upstream_attempts_total{target="(workspace)",outcome="server_error"}');
    await flushEvidence(sieve);
    for (const text of [await storedText(sieve), sieve.logs.join("\n"), metrics, JSON.stringify(record)]) expect(text).not.toContain(SECRET);
  });

  test("another workspace's requests are not routed by these routes", async () => {
    const response = await fetch(`${sieve.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...other.serviceHeaders },
      body: JSON.stringify({ model: "own-model", messages: [{ role: "user", content: "hello" }] }),
    });
    expect(response.headers.get("x-service-target")).toBeNull();
    expect(((await (await api("GET", "/", undefined, other.bearer)).json()) as { routing: unknown }).routing).toBeNull();
  });

  test("a secret in use cannot be deleted; without routes the workspace's requests go to its upstream again", async () => {
    expect((await api("DELETE", "/secrets/provider-key")).status).toBe(409);
    expect((await api("DELETE", "/secrets/unknown")).status).toBe(404);
    expect((await api("DELETE", "/")).status).toBe(200);
    const response = await fetch(`${sieve.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...tenant.serviceHeaders },
      body: JSON.stringify({ model: "own-model", messages: [{ role: "user", content: "hello" }] }),
    });
    expect(response.headers.get("x-service-target")).toBeNull();
    const deleted = await api("DELETE", "/secrets/provider-key");
    expect(deleted.status).toBe(200);
    expect(((await deleted.json()) as { secrets: string[] }).secrets).toEqual([]);
  });
});
