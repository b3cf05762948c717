/**
 * Issue #17, defects 6, 7, 8: what one tenant (or a stranger) can learn or do to another.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { runCli } from "../support/process";
import { startSieve, tempDir, type TestSieve } from "../support/sieve";
import { WorkspaceScope } from "../../src/tenancy/scope";
import { createApiKey } from "../../src/tenancy/service";

let sieve: TestSieve;
let upstream: FakeUpstream;

beforeAll(async () => {
  upstream = startFakeUpstream();
  sieve = await startSieve({ upstreamUrl: upstream.url, loginMaxFailures: 3 });
});
afterAll(async () => {
  await sieve.close();
  await upstream.stop();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${sieve.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("the embedding memo is per workspace (defect 6)", () => {
  // Longer than one request's embedding budget: windows already known cost nothing and are
  // never skipped, so skipped_windows shows whether the memo knew the text.
  const secret = Array.from({ length: 40 }, (_, i) => `Confidential merger note ${i}: the Northwind deal closes on the ${i + 1}th at 4.2 billion.`).join(" ");

  test("workspace B cannot tell that workspace A just sent a text", async () => {
    const a = await sieve.tenant("memo-a");
    const b = await sieve.tenant("memo-b");
    const first = (await (await post("/v1/firewall/test", { text: secret }, a.serviceHeaders)).json()) as any;
    expect(first.skipped_windows).toBeGreaterThan(0);
    // A's own repeat is served from A's memo (so the test can see a shared memo if there were one)…
    const again = (await (await post("/v1/firewall/test", { text: secret }, a.serviceHeaders)).json()) as any;
    expect(again.skipped_windows).toBeLessThan(first.skipped_windows);
    // …while B sees exactly what a workspace that never met the text sees.
    const other = (await (await post("/v1/firewall/test", { text: secret }, b.serviceHeaders)).json()) as any;
    expect(other.skipped_windows).toBe(first.skipped_windows);
    expect(sieve.ctx.vectors.peek(secret.slice(0, 50), b.workspaceId)).toBeUndefined();
  });
});

describe("key privileges and budgets (defect 7)", () => {
  test("a service key cannot list, create or revoke keys; an admin key and a session can", async () => {
    const owner = await sieve.tenant("keys-owner"); // the operator's (CLI-style) key: admin
    const created = await post("/api/keys", { name: "app" }, owner.bearer);
    expect(created.status).toBe(201);
    const service = (await created.json()) as any;
    expect(service.role).toBe("service");
    const asService = { Authorization: `Bearer ${service.api_key}` };
    expect((await fetch(`${sieve.url}/api/keys`, { headers: asService })).status).toBe(403);
    expect((await post("/api/keys", { name: "more" }, asService)).status).toBe(403);
    expect((await fetch(`${sieve.url}/api/keys/${owner.keyId}`, { method: "DELETE", headers: asService })).status).toBe(403);
    // The service key still does its job.
    expect((await fetch(`${sieve.url}/api/workspace`, { headers: asService })).status).toBe(200);
    // An admin key can make another admin key.
    const admin = await post("/api/keys", { name: "ops", role: "admin" }, owner.bearer);
    expect(((await admin.json()) as any).role).toBe("admin");
    const listed = (await (await fetch(`${sieve.url}/api/keys`, { headers: owner.bearer })).json()) as any;
    expect(listed.keys.map((k: any) => k.role).sort()).toEqual(["admin", "admin", "service"]);
  });

  test("`sieve keys create` makes an admin key (the operator's bootstrap key)", async () => {
    const dataDir = tempDir();
    const other = await startSieve({ dataDir });
    try {
      // The server's own database, whichever it is (SIEVE_TEST_DATABASE=postgres runs this on PostgreSQL).
      const database = other.ctx.config.database ? ["--database", other.ctx.config.database] : [];
      const result = await runCli(["keys", "create", "--data-dir", dataDir, ...database, "--json"]);
      expect(result.code).toBe(0);
      const { api_key } = JSON.parse(result.stdout.trim().split("\n").at(-1)!);
      const response = await fetch(`${other.url}/api/keys`, {
        method: "POST",
        headers: { "content-type": "application/json", Authorization: `Bearer ${api_key}` },
        body: JSON.stringify({ name: "from-cli-key" }),
      });
      expect(response.status).toBe(201);
    } finally {
      await other.close();
    }
  });

  test("the rate limit is per workspace: a new key brings no new budget", async () => {
    const limited = await startSieve({ upstreamUrl: upstream.url, rateLimitRpm: 3 });
    try {
      const t = await limited.tenant("budget");
      for (let i = 0; i < 3; i++) expect((await fetch(`${limited.url}/api/workspace`, { headers: t.bearer })).status).toBe(200);
      expect((await fetch(`${limited.url}/api/workspace`, { headers: t.bearer })).status).toBe(429);
      const { key } = await createApiKey(new WorkspaceScope(limited.ctx.database, t.workspaceId), "fresh", "service");
      const fresh = await fetch(`${limited.url}/api/workspace`, { headers: { Authorization: `Bearer ${key}` } });
      expect(fresh.status).toBe(429);
      expect(fresh.headers.get("retry-after")).toMatch(/^\d+$/);
      // Another workspace has its own budget.
      expect((await fetch(`${limited.url}/api/workspace`, { headers: (await limited.tenant("other")).bearer })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe("login throttling (defect 7)", () => {
  const password = "a long enough password";

  test("after --login-max-failures wrong passwords the account gets 429, even with the right password", async () => {
    const email = "throttled@example.com";
    expect((await post("/api/auth/signup", { email, password })).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await post("/api/auth/login", { email, password: "wrong password" })).status).toBe(401);
    const locked = await post("/api/auth/login", { email, password });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another account from the same address is not locked by these three.
    const other = "other@example.com";
    expect((await post("/api/auth/signup", { email: other, password })).status).toBe(201);
    expect((await post("/api/auth/login", { email: other, password })).status).toBe(200);
  });

  test("one client address trying many accounts is throttled too (4 × the per-account limit)", async () => {
    const own = await startSieve({ loginMaxFailures: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 13; i++) {
        const response = await fetch(`${own.url}/api/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: `spray${i}@example.com`, password: "guess guess" }),
        });
        statuses.push(response.status);
      }
      expect(statuses.slice(0, 12).every((status) => status === 401)).toBe(true);
      expect(statuses[12]).toBe(429);
    } finally {
      await own.close();
    }
  });
});

describe("cross-site requests (defect 8)", () => {
  test("login and sign-up accept JSON only (415)", async () => {
    for (const path of ["/api/auth/login", "/api/auth/signup"]) {
      for (const [type, body] of [
        ["application/x-www-form-urlencoded", "email=a%40b.example&password=aaaaaaaaaa"],
        ["text/plain", '{"email":"a@b.example","password":"aaaaaaaaaa"}'],
        ["multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.example\r\n--x--\r\n'],
      ]) {
        const response = await fetch(`${sieve.url}${path}`, { method: "POST", headers: { "content-type": type! }, body });
        expect(response.status).toBe(415);
        expect(((await response.json()) as any).code).toBe("unsupported_media_type");
      }
    }
  });

  test("a foreign Origin cannot sign up or log in; the own origin can", async () => {
    const body = { email: "origin@example.com", password: "a long enough password" };
    const foreign = await post("/api/auth/signup", body, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("set-cookie")).toBeNull();
    expect((await post("/api/auth/signup", body, { origin: "null" })).status).toBe(403);
    expect((await post("/api/auth/signup", body, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await post("/api/auth/signup", body, { origin: sieve.url })).status).toBe(201);
    expect((await post("/api/auth/login", body, { origin: "https://evil.example" })).status).toBe(403);
    expect((await post("/api/auth/login", body, { origin: sieve.url })).status).toBe(200);
  });

  test("logout needs the session's CSRF token", async () => {
    const body = { email: "logout@example.com", password: "a long enough password" };
    const signup = await post("/api/auth/signup", body);
    const cookie = signup.headers.get("set-cookie")!.split(";")[0]!;
    const { csrf_token } = (await signup.json()) as any;
    expect((await post("/api/auth/logout", {}, { cookie })).status).toBe(403);
    expect((await fetch(`${sieve.url}/api/auth/me`, { headers: { cookie } })).status).toBe(200);
    expect((await post("/api/auth/logout", {}, { cookie, "x-csrf-token": csrf_token })).status).toBe(200);
    expect((await fetch(`${sieve.url}/api/auth/me`, { headers: { cookie } })).status).toBe(401);
  });
});
