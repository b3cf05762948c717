import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { sessions } from "../../src/tenancy/schema";
import { generateApiKey } from "../../src/tenancy/secrets";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { flushEvidence, startSieve, storedText, type Tenant, type TestSieve } from "../support/sieve";

let upstream: FakeUpstream;
let sieve: TestSieve;
let alice: Tenant;
let bob: Tenant;

beforeAll(async () => {
  upstream = startFakeUpstream();
  sieve = await startSieve({ upstreamUrl: upstream.url });
  alice = await sieve.tenant("alice");
  bob = await sieve.tenant("bob");
});

afterAll(async () => {
  await sieve.close();
  await upstream.stop();
});

const chat = (headers: Record<string, string>) =>
  fetch(`${sieve.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
  });

describe("proxy credentials (spec §5)", () => {
  test("the key and workspace of one tenant work", async () => {
    expect((await chat(alice.serviceHeaders)).status).toBe(200);
  });

  test.each([
    ["no key", (t: Tenant) => ({ "X-Service-Workspace-Id": t.workspaceId })],
    ["malformed key", (t: Tenant) => ({ "X-Service-Api-Key": "not-a-key", "X-Service-Workspace-Id": t.workspaceId })],
    ["unknown key", (t: Tenant) => ({ "X-Service-Api-Key": generateApiKey(), "X-Service-Workspace-Id": t.workspaceId })],
  ])("%s → 401 in OpenAI's error shape, saying what to send", async (_name, headers) => {
    const count = upstream.received.length;
    const response = await chat(headers(alice));
    expect(response.status).toBe(401);
    const body = (await response.json()) as any;
    expect(body.error).toMatchObject({ type: "authentication_error", code: "unauthorized" });
    expect(body.error.message).toContain("X-Service-Api-Key");
    expect(JSON.stringify(body)).not.toContain(alice.apiKey);
    expect(upstream.received.length).toBe(count);
  });

  test("a valid key with another workspace's id → 403", async () => {
    const response = await chat({ "X-Service-Api-Key": alice.apiKey, "X-Service-Workspace-Id": bob.workspaceId });
    expect(response.status).toBe(403);
    expect(((await response.json()) as any).error).toMatchObject({ type: "permission_error", code: "forbidden", message: expect.stringContaining("leave the header out") });
  });

  test("the workspace header is optional: the key implies its workspace (issue 54, point 7)", async () => {
    expect((await chat({ "X-Service-Api-Key": alice.apiKey })).status).toBe(200);
    const notUuid = await chat({ "X-Service-Api-Key": alice.apiKey, "X-Service-Workspace-Id": "alice" });
    expect(notUuid.status).toBe(400);
    expect(((await notUuid.json()) as any).error.message).toContain("X-Service-Workspace-Id must be a UUID");
  });

  test("1,000 random well-formed keys are all rejected", async () => {
    const statuses = await Promise.all(
      Array.from({ length: 1000 }, () =>
        fetch(`${sieve.url}/v1/evidence?limit=1`, { headers: { "X-Service-Api-Key": generateApiKey(), "X-Service-Workspace-Id": alice.workspaceId } }).then((r) => r.status),
      ),
    );
    expect(new Set(statuses)).toEqual(new Set([401]));
  });

  test("a revoked key stops working on the next request", async () => {
    const carol = await sieve.tenant("carol");
    expect((await chat(carol.serviceHeaders)).status).toBe(200);
    const revoke = await fetch(`${sieve.url}/api/keys/${carol.keyId}`, { method: "DELETE", headers: carol.bearer });
    expect(revoke.status).toBe(200);
    expect(((await revoke.json()) as any).revoked_at).toBeTruthy();
    expect((await chat(carol.serviceHeaders)).status).toBe(401);
  });
});

describe("document API: the proxy's X-Service headers work too (issue 54, point 7)", () => {
  const documents = (headers: Record<string, string>) => fetch(`${sieve.url}/api/documents`, { headers });

  test("Authorization: Bearer (spec §5), X-Service-Api-Key alone, and with its own workspace id", async () => {
    expect((await documents(alice.bearer)).status).toBe(200);
    expect((await documents({ "X-Service-Api-Key": alice.apiKey })).status).toBe(200);
    expect((await documents(alice.serviceHeaders)).status).toBe(200);
    // A provider key in Authorization beside the Sieve key is not a Sieve key: ignored here.
    expect((await documents({ ...alice.serviceHeaders, authorization: "Bearer sk-provider" })).status).toBe(200);
  });

  test("the scope is the key's workspace: bob's key lists bob's documents", async () => {
    const upload = await fetch(`${sieve.url}/api/documents`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-Service-Api-Key": bob.apiKey },
      body: JSON.stringify({ filename: "bob.md", text: "# Bob\n\nOnly bob's." }),
    });
    expect(upload.status).toBeLessThan(300);
    const { document_id } = (await upload.json()) as any;
    expect((await fetch(`${sieve.url}/api/documents/${document_id}`, { headers: { "X-Service-Api-Key": bob.apiKey } })).status).toBe(200);
    expect(await (await fetch(`${sieve.url}/api/documents/${document_id}`, { headers: { "X-Service-Api-Key": alice.apiKey } })).json()).toEqual({ detail: "Document not found", status_code: 404 });
  });

  test("a workspace id that is not the key's → 403 naming the fix; two different keys → 400", async () => {
    const mismatch = await documents({ "X-Service-Api-Key": alice.apiKey, "X-Service-Workspace-Id": bob.workspaceId });
    expect(mismatch.status).toBe(403);
    expect(await mismatch.json()).toMatchObject({ status_code: 403, code: "forbidden", detail: expect.stringContaining("does not belong to the workspace in X-Service-Workspace-Id") });
    const twoKeys = await documents({ "X-Service-Api-Key": alice.apiKey, authorization: `Bearer ${bob.apiKey}` });
    expect(twoKeys.status).toBe(400);
    expect(((await twoKeys.json()) as any).detail).toContain("two different Sieve keys");
  });
});

describe("credentials come before the body", () => {
  test.each([
    ["PATCH", "/api/workspace", { colour: "red" }, {}],
    ["POST", "/api/keys", { name: 5 }, {}],
    ["POST", "/v1/firewall/patterns", { text: 5 }, {}],
    ["PATCH", "/v1/cache/settings", { semantic: "sometimes" }, {}],
    ["POST", "/v1/firewall/patterns", { text: 5 }, { "X-Service-Api-Key": generateApiKey() }],
    ["PATCH", "/api/workspace", { colour: "red" }, { authorization: "Bearer not-a-key" }],
  ])("%s %s with a body the route rejects and no valid key → 401, not a description of the body", async (method, path, body, headers) => {
    const response = await fetch(`${sieve.url}${path}`, { method, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ code: "unauthorized", status_code: 401 });
    expect(text).not.toContain("body.");
  });
});

describe("API keys (Settings → API Keys)", () => {
  test("create shows the key once; list never shows it; stored only as a hash", async () => {
    const created = (await (
      await fetch(`${sieve.url}/api/keys`, { method: "POST", headers: { ...alice.bearer, "content-type": "application/json" }, body: JSON.stringify({ name: "ci" }) })
    ).json()) as any;
    expect(created.api_key).toMatch(/^sieve_[0-9A-Za-z]{32,}$/);
    expect(created.prefix).toBe(created.api_key.slice(0, 10));
    const list = (await (await fetch(`${sieve.url}/api/keys`, { headers: alice.bearer })).json()) as any;
    expect(list.keys.map((k: any) => k.name)).toContain("ci");
    expect(JSON.stringify(list)).not.toContain(created.api_key);
    expect(list.keys.every((k: any) => !("api_key" in k))).toBe(true);
  });

  test("another workspace's key cannot be revoked or listed", async () => {
    const response = await fetch(`${sieve.url}/api/keys/${alice.keyId}`, { method: "DELETE", headers: bob.bearer });
    expect(response.status).toBe(404);
    const list = (await (await fetch(`${sieve.url}/api/keys`, { headers: bob.bearer })).json()) as any;
    expect(list.keys.map((k: any) => k.id)).not.toContain(alice.keyId);
  });

  test("bad input → 400 naming the field; nothing created", async () => {
    const before = ((await (await fetch(`${sieve.url}/api/keys`, { headers: alice.bearer })).json()) as any).keys.length;
    const response = await fetch(`${sieve.url}/api/keys`, { method: "POST", headers: { ...alice.bearer, "content-type": "application/json" }, body: JSON.stringify({ name: 42 }) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).detail).toContain("name");
    const after = ((await (await fetch(`${sieve.url}/api/keys`, { headers: alice.bearer })).json()) as any).keys.length;
    expect(after).toBe(before);
  });
});

describe("dashboard accounts", () => {
  const email = "dana@example.com";
  const password = "correct horse battery staple";
  const json = (body: unknown, headers: Record<string, string> = {}) => ({
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const cookieOf = (response: Response) => response.headers.get("set-cookie")!.split(";")[0]!;

  test("sign-up, me, CSRF-protected key creation, logout, login, expiry", async () => {
    const signup = await fetch(`${sieve.url}/api/auth/signup`, json({ email, password, workspace_name: "Dana's" }));
    expect(signup.status).toBe(201);
    const setCookie = signup.headers.get("set-cookie")!;
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    const signed = (await signup.json()) as any;
    expect(signed.workspace.name).toBe("Dana's");
    const cookie = cookieOf(signup);

    const me = (await (await fetch(`${sieve.url}/api/auth/me`, { headers: { cookie } })).json()) as any;
    expect(me.user.email).toBe(email);
    expect(me.workspace.id).toBe(signed.workspace.id);

    const withoutCsrf = await fetch(`${sieve.url}/api/keys`, json({ name: "x" }, { cookie }));
    expect(withoutCsrf.status).toBe(403);
    const withCsrf = await fetch(`${sieve.url}/api/keys`, json({ name: "x" }, { cookie, "x-csrf-token": me.csrf_token }));
    expect(withCsrf.status).toBe(201);
    expect(((await withCsrf.json()) as any).workspace_id).toBe(signed.workspace.id);

    expect((await fetch(`${sieve.url}/api/auth/signup`, json({ email, password }))).status).toBe(409);
    expect((await fetch(`${sieve.url}/api/auth/logout`, json({}, { cookie, "x-csrf-token": me.csrf_token }))).status).toBe(200);
    expect((await fetch(`${sieve.url}/api/auth/me`, { headers: { cookie } })).status).toBe(401);

    expect((await fetch(`${sieve.url}/api/auth/login`, json({ email, password: "wrong password!" }))).status).toBe(401);
    const login = await fetch(`${sieve.url}/api/auth/login`, json({ email: "DANA@example.com", password }));
    expect(login.status).toBe(200);
    const second = cookieOf(login);
    expect((await fetch(`${sieve.url}/api/auth/me`, { headers: { cookie: second } })).status).toBe(200);
    // Expire every session of this database, as time passing would.
    await sieve.ctx.database.db.update(sessions).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(sessions.workspaceId, signed.workspace.id));
    expect((await fetch(`${sieve.url}/api/auth/me`, { headers: { cookie: second } })).status).toBe(401);
  });

  test("bad sign-up input → 400 naming the field", async () => {
    const short = await fetch(`${sieve.url}/api/auth/signup`, json({ email: "e@example.com", password: "short" }));
    expect(short.status).toBe(400);
    expect(((await short.json()) as any).detail).toContain("password");
    const noEmail = await fetch(`${sieve.url}/api/auth/signup`, json({ password: "long enough pw" }));
    expect(noEmail.status).toBe(400);
    expect(((await noEmail.json()) as any).detail).toContain("email");
  });

  test("passwords and keys never appear in clear in the database or the logs", async () => {
    await flushEvidence(sieve);
    const files = await storedText(sieve);
    for (const secret of [password, alice.apiKey, bob.apiKey]) {
      expect(files).not.toContain(secret);
      expect(sieve.logs.join("\n")).not.toContain(secret);
    }
  });
});

describe("workspace settings", () => {
  const patch = (t: Tenant, body: unknown) =>
    fetch(`${sieve.url}/api/workspace`, { method: "PATCH", headers: { ...t.bearer, "content-type": "application/json" }, body: JSON.stringify(body) });

  test("GET shows the caller's own workspace; PATCH changes it and the proxy follows the workspace's provider URL", async () => {
    const erin = await sieve.tenant("erin");
    const mine = (await (await fetch(`${sieve.url}/api/workspace`, { headers: erin.bearer })).json()) as any;
    expect(mine).toMatchObject({ id: erin.workspaceId, name: "erin", log_bodies: true, firewall_scan_system: false, upstream_url: null });
    // Point the server default somewhere dead: only the workspace setting can reach the provider.
    // The fake provider is on loopback, which a workspace may use only when the operator allows it.
    const dead = await startSieve({ upstreamUrl: "http://127.0.0.1:9/v1", allowUpstreamHosts: "127.0.0.1" });
    try {
      const t = await dead.tenant("routed");
      const before = await fetch(`${dead.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...t.serviceHeaders },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "route me" }] }),
      });
      expect(before.status).toBe(502);
      const changed = await fetch(`${dead.url}/api/workspace`, {
        method: "PATCH",
        headers: { ...t.bearer, "content-type": "application/json" },
        body: JSON.stringify({ upstream_url: upstream.url, log_bodies: false }),
      });
      expect(((await changed.json()) as any).effective_upstream_url).toBe(upstream.url);
      const after = await fetch(`${dead.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...t.serviceHeaders },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "route me" }] }),
      });
      expect(after.status).toBe(200);
      expect(((await after.json()) as any).choices[0].message.content).toBe("echo: route me");
    } finally {
      await dead.close();
    }
  });

  test("bad settings → 400 naming the field, nothing changed", async () => {
    const frank = await sieve.tenant("frank");
    for (const [body, field] of [
      [{ log_bodies: "no" }, "log_bodies"],
      [{ upstream_url: "ftp://x" }, "upstream_url"],
      [{ colour: "red" }, "colour"],
      [{ name: "" }, "name"],
    ] as const) {
      const response = await patch(frank, body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).detail).toContain(field);
    }
    const unchanged = (await (await fetch(`${sieve.url}/api/workspace`, { headers: frank.bearer })).json()) as any;
    expect(unchanged).toMatchObject({ name: "frank", log_bodies: true, upstream_url: null });
  });
});
