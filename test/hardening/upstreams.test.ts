/**
 * Issue #17, defects 3 and 11: a tenant's upstream_url must not be a door into the host's
 * network, and proxy errors must not act as a port scanner or leak runtime internals.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startSieve, type Tenant, type TestSieve } from "../support/sieve";
import { workspaces } from "../../src/tenancy/schema";

let sieve: TestSieve;
let upstream: FakeUpstream;

beforeAll(async () => {
  upstream = startFakeUpstream();
  // The operator's own --upstream-url may be anything, loopback included.
  sieve = await startSieve({ upstreamUrl: upstream.url });
});
afterAll(async () => {
  await sieve.close();
  await upstream.stop();
});

const patch = (s: TestSieve, t: Tenant, body: unknown) =>
  fetch(`${s.url}/api/workspace`, { method: "PATCH", headers: { ...t.bearer, "content-type": "application/json" }, body: JSON.stringify(body) });

const chat = (s: TestSieve, t: Tenant, content = "hello") =>
  fetch(`${s.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...t.serviceHeaders },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content }] }),
  });

describe("who may set upstream_url (issue #28, defect 1)", () => {
  test("a service key may change other settings but not where the workspace's traffic goes", async () => {
    const t = await sieve.tenant("service-upstream");
    const made = await fetch(`${sieve.url}/api/keys`, { method: "POST", headers: { ...t.bearer, "content-type": "application/json" }, body: JSON.stringify({ name: "svc", role: "service" }) });
    const service: Tenant = { ...t, bearer: { Authorization: `Bearer ${((await made.json()) as { api_key: string }).api_key}` } };
    for (const field of ["upstream_url", "anthropic_upstream_url"]) {
      const refused = await patch(sieve, service, { [field]: "https://provider.example.com/v1" });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { detail: string }).detail).toBe(`changing ${field} needs a dashboard session or an admin key; this is a service key`);
    }
    expect((await patch(sieve, service, { log_bodies: false })).status).toBe(200);
    const settings = (await (await fetch(`${sieve.url}/api/workspace`, { headers: t.bearer })).json()) as { upstream_url: string | null; log_bodies: boolean };
    expect(settings).toMatchObject({ upstream_url: null, log_bodies: false });
    expect((await patch(sieve, t, { upstream_url: "https://provider.example.com/v1" })).status).toBe(200);
  });
});

describe("workspace upstream_url (defect 3)", () => {
  const port = () => new URL(upstream.url).port;
  const refused = () => [
    `http://127.0.0.1:${port()}/v1`,
    `http://localhost:${port()}/v1`,
    "http://169.254.169.254/latest/meta-data",
    "http://[::1]/v1",
    "http://[::ffff:127.0.0.1]/v1",
    "http://[::ffff:7f00:1]/v1",
    "http://10.0.0.8/v1",
    "http://192.168.1.1/v1",
    "http://[fd00::1]/v1",
    "http://[fe80::1]/v1",
    "http://0.0.0.0/v1",
    "http://224.0.0.1/v1",
    "https://user:secret@api.example.com/v1",
    "https://api.example.com/v1#fragment",
    "file:///etc/passwd",
  ];
  test("non-public hosts, credentials and fragments → 400 naming upstream_url; nothing changes", async () => {
    const t = await sieve.tenant("ssrf");
    for (const url of refused()) {
      const response = await patch(sieve, t, { upstream_url: url, name: "changed" });
      expect(response.status, url).toBe(400);
      expect(((await response.json()) as any).detail, url).toContain("upstream_url");
    }
    for (const url of refused()) {
      const response = await patch(sieve, t, { anthropic_upstream_url: url.replace(/\/v1$/, ""), name: "changed" });
      expect(response.status, url).toBe(400);
      expect(((await response.json()) as any).detail, url).toContain("anthropic_upstream_url");
    }
    const settings = (await (await fetch(`${sieve.url}/api/workspace`, { headers: t.bearer })).json()) as any;
    expect(settings.upstream_url).toBeNull();
    expect(settings.name).toBe("ssrf");
  });

  test("a public https URL is accepted (no network needed to set it)", async () => {
    const t = await sieve.tenant("public");
    const response = await patch(sieve, t, { upstream_url: "https://api.example.com/v1" });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).upstream_url).toBe("https://api.example.com/v1");
  });

  test("a name that resolves to a non-public address is refused at connect time (DNS is checked on every request)", async () => {
    const t = await sieve.tenant("rebind");
    // As if the name had resolved to a public address when it was set and to loopback now.
    for (const name of ["localhost", "vm", "runsc"]) {
      sieve.ctx.database.db.update(workspaces).set({ upstreamUrl: `http://${name}:${port()}/v1` }).where(eq(workspaces.id, t.workspaceId)).run();
      const before = upstream.received.length;
      const response = await chat(sieve, t);
      expect(response.status).toBe(502);
      const body = (await response.json()) as any;
      expect(body.error.code).toBe("upstream_refused");
      expect(body.error.message).toContain("--allow-upstream-hosts");
      expect(response.headers.get("x-service-request-id")).toBeTruthy();
      expect(upstream.received.length).toBe(before);
    }
  });

  test("--allow-upstream-hosts lets the operator allow addresses, ranges and names", async () => {
    for (const allow of ["127.0.0.1", "127.0.0.0/8", "localhost", "*"]) {
      const allowed = await startSieve({ upstreamUrl: "http://127.0.0.1:9/v1", allowUpstreamHosts: `10.0.0.0/8, ${allow}` });
      try {
        const t = await allowed.tenant("allowed");
        const host = allow === "localhost" ? "localhost" : "127.0.0.1";
        const target = `http://${host}:${port()}/v1`;
        expect((await patch(allowed, t, { upstream_url: target })).status, allow).toBe(200);
        const response = await chat(allowed, t, `via ${allow}`);
        expect(response.status, allow).toBe(200);
        expect(((await response.json()) as any).choices[0].message.content).toBe(`echo: via ${allow}`);
        expect(upstream.received.at(-1)!.headers.host).toBe(`${host}:${port()}`);
        // Other private ranges stay closed.
        expect((await patch(allowed, t, { upstream_url: "http://169.254.169.254/" })).status, allow).toBe(allow === "*" ? 200 : 400);
      } finally {
        await allowed.close();
      }
    }
  });

  test("an invalid --allow-upstream-hosts entry stops start-up naming it", async () => {
    const { loadConfig } = await import("../../src/config");
    expect(() => loadConfig(["--allow-upstream-hosts", "good.example,bad host"])).toThrow('--allow-upstream-hosts: "bad host" is not');
    expect(() => loadConfig([], { SIEVE_ALLOW_UPSTREAM_HOSTS: "10.0.0.0/99" })).toThrow("SIEVE_ALLOW_UPSTREAM_HOSTS");
    expect(loadConfig(["--allow-upstream-hosts", "*.corp.example, 10.0.0.0/8, ::1, llm"]).allowUpstreamHosts).toContain("10.0.0.0/8");
  });
});

describe("provider errors that do not scan ports or leak internals (defects 3, 11)", () => {
  test("a closed port and an open port that does not speak HTTP give the same 502", async () => {
    const garbage = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open(socket) {
          socket.write("SSH-2.0-OpenSSH_9.2\r\n");
          socket.end();
        },
        data() {},
      },
    });
    const closedPort = await (async () => {
      const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
      const free = probe.port;
      probe.stop(true);
      return free;
    })();
    const allowed = await startSieve({ upstreamUrl: "http://127.0.0.1:9/v1", allowUpstreamHosts: "127.0.0.1" });
    try {
      const answers: any[] = [];
      for (const targetPort of [closedPort, garbage.port]) {
        const t = await allowed.tenant(`scan-${targetPort}`);
        expect((await patch(allowed, t, { upstream_url: `http://127.0.0.1:${targetPort}/v1` })).status).toBe(200);
        const response = await chat(allowed, t);
        expect(response.status).toBe(502);
        const body = (await response.json()) as any;
        answers.push({ code: body.error.code, message: body.error.message.replace(String(targetPort), "PORT") });
      }
      expect(answers[0]).toEqual(answers[1]);
      expect(JSON.stringify(answers)).not.toMatch(/verbose|fetch\(\)|ECONNREFUSED|ConnectionRefused|socket/i);
    } finally {
      garbage.stop(true);
      await allowed.close();
    }
  });

  test("a provider stream that breaks off ends with an error event that names no runtime internals", async () => {
    const t = await sieve.tenant("drop");
    const response = await fetch(`${sieve.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...t.serviceHeaders },
      body: JSON.stringify({ model: "drop", stream: true, messages: [{ role: "user", content: "one two three four five" }] }),
    });
    const text = await response.text();
    expect(text).toContain("event: error");
    expect(text).toContain("the provider stream broke off");
    expect(text).not.toMatch(/verbose|fetch\(\)|ECONN|socket/i);
  });
});
