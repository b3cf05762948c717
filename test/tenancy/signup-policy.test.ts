import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { runCli, spawnServe, waitUntilReady } from "../support/process";
import { startSieve, tempDir } from "../support/sieve";

/**
 * Issue 54, point 2: the quick start's CLI key and the dashboard account end up in one workspace,
 * and sign-up can be closed (--signup open | first-only | closed).
 */
let upstream: FakeUpstream;

beforeAll(() => {
  upstream = startFakeUpstream();
});

afterAll(() => upstream.stop());

const signUp = (url: string, email: string, extra: Record<string, string> = {}) =>
  fetch(`${url}/api/auth/signup`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password: "long enough password", ...extra }) });

const cookieOf = (response: Response) => response.headers.get("set-cookie")!.split(";")[0]!;

describe("CLI first, then the dashboard (the quick start's order)", () => {
  test("the first sign-up joins the CLI's workspace and sees its traffic; the CLI still needs no --workspace; a later sign-up gets its own", async () => {
    const dataDir = tempDir();
    const created = await runCli(["keys", "create", "--init", "--data-dir", dataDir, "--json"]);
    expect(created.code).toBe(0);
    const { workspace_id, api_key } = JSON.parse(created.stdout);
    const serve = await spawnServe(["--data-dir", dataDir, "--upstream-url", upstream.url]);
    try {
      await waitUntilReady(serve.url);
      expect(serve.output()).toContain("the first account signed up at /dashboard joins the workspace of your API key");
      const openai = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: "sk-provider", defaultHeaders: { "X-Service-Api-Key": api_key, "X-Service-Workspace-Id": workspace_id }, maxRetries: 0 });
      const { response } = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "from the CLI key" }] }).withResponse();
      const requestId = response.headers.get("x-service-request-id")!;

      const first = await signUp(serve.url, "owner@example.com", { workspace_name: "ignored when joining" });
      expect(first.status).toBe(201);
      const signed = (await first.json()) as any;
      expect(signed.workspace.id).toBe(workspace_id);
      expect(signed.claimed_existing_workspace).toBe(true);

      // The dashboard's session reads the key's evidence.
      const cookie = cookieOf(first);
      let seen: any;
      for (let i = 0; i < 100 && !seen; i++) {
        const page = (await (await fetch(`${serve.url}/v1/evidence`, { headers: { cookie } })).json()) as any;
        seen = page.records.find((record: any) => record.request_id === requestId);
        if (!seen) await Bun.sleep(20);
      }
      expect(seen).toMatchObject({ request_id: requestId, status: 200 });

      // The quick start's own `keys create` still finds exactly one workspace.
      const again = await runCli(["keys", "create", "--data-dir", dataDir, "--json"]);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout).workspace_id).toBe(workspace_id);

      const second = await signUp(serve.url, "guest@example.com");
      expect(second.status).toBe(201);
      const other = (await second.json()) as any;
      expect(other.claimed_existing_workspace).toBe(false);
      expect(other.workspace.id).not.toBe(workspace_id);
    } finally {
      serve.child.kill("SIGTERM");
      await serve.child.exited;
    }
  }, 60_000);
});

describe("--signup", () => {
  test("first-only: the first account is made, every later sign-up is 403 signup_closed", async () => {
    const sieve = await startSieve({ signup: "first-only" });
    try {
      expect((await signUp(sieve.url, "first@example.com")).status).toBe(201);
      const later = await signUp(sieve.url, "second@example.com");
      expect(later.status).toBe(403);
      expect(await later.json()).toMatchObject({ status_code: 403, code: "signup_closed", detail: expect.stringContaining("--signup first-only") });
    } finally {
      await sieve.close();
    }
  });

  test("closed: no sign-up at all, and nothing is written", async () => {
    const sieve = await startSieve({ signup: "closed" });
    try {
      const refused = await signUp(sieve.url, "nobody@example.com");
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as any).code).toBe("signup_closed");
      const [row] = await sieve.ctx.database.all<{ n: number | string }>("select count(*) as n from users", {});
      expect(Number(row!.n)).toBe(0);
    } finally {
      await sieve.close();
    }
  });

  test("a server with several workspaces: the first sign-up gets a workspace of its own", async () => {
    const sieve = await startSieve();
    try {
      const a = await sieve.tenant("a");
      await sieve.tenant("b");
      const signed = (await (await signUp(sieve.url, "new@example.com")).json()) as any;
      expect(signed.claimed_existing_workspace).toBe(false);
      expect(signed.workspace.id).not.toBe(a.workspaceId);
    } finally {
      await sieve.close();
    }
  });

  test("a bad value names the flag", async () => {
    const { code, stderr } = await runCli(["serve", "--signup", "sometimes"]);
    expect(code).not.toBe(0);
    expect(stderr).toContain("--signup");
  });
});
