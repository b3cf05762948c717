import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "bun";
import { MAIN, REPO, runCli, spawnServe, waitUntilReady } from "../support/process";
import { tempDir } from "../support/sieve";

describe("sieve CLI", () => {
  test("--help lists every flag with its environment variable; --version prints the version", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    for (const flag of ["--port", "--host", "--data-dir", "--upstream-url", "--model-dir", "--log-level"]) expect(help.stdout).toContain(flag);
    expect(help.stdout).toContain("SIEVE_PORT");
    const version = await runCli(["--version"]);
    expect(version.stdout).toMatch(/^sieve \d+\.\d+\.\d+/);
  });

  test.each([
    [["--port", "99999"], "--port"],
    [["--port", "abc"], "--port"],
    [["--upstream-url", "ftp://x"], "--upstream-url"],
    [["--log-level", "loud"], "--log-level"],
    [["--no-such-flag"], "--no-such-flag"],
  ])("bad value %j exits non-zero with one line naming %s", async (args, flag) => {
    const result = await runCli(["serve", ...args, "--data-dir", tempDir()]);
    expect(result.code).not.toBe(0);
    const lines = result.stderr.trim().split("\n");
    expect(lines.length).toBe(1);
    expect(lines[0]).toContain(flag);
  });

  test("a bad environment value names the variable", async () => {
    const result = await runCli(["serve", "--data-dir", tempDir()], { SIEVE_PORT: "-1" });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("SIEVE_PORT");
  });

  test("a data dir whose database file is not a database: serve and keys exit non-zero with one line naming the file", async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, "sieve.db"), "these bytes are not an SQLite database\n".repeat(200));
    for (const args of [["serve"], ["keys", "create"]]) {
      const result = await runCli([...args, "--data-dir", dataDir]);
      expect(result.code).not.toBe(0);
      const lines = result.stderr.trim().split("\n");
      expect(lines.length).toBe(1);
      expect(lines[0]).toContain(join(dataDir, "sieve.db"));
      expect(lines[0]).toContain("not a Sieve database, or damaged");
    }
  });

  test("workspaces and keys: create, list, revoke, while the server runs on the same data dir", async () => {
    const dataDir = tempDir();
    const serve = await spawnServe(["--data-dir", dataDir]);
    try {
      for (let i = 0; i < 100 && !serve.output().includes("sieve keys create"); i++) await Bun.sleep(20);
      expect(serve.output()).toContain("sieve keys create");
      const workspace = await runCli(["workspaces", "create", "--name", "team", "--data-dir", dataDir, "--json"]);
      expect(workspace.code).toBe(0);
      const { workspace_id, name } = JSON.parse(workspace.stdout);
      expect(name).toBe("team");
      const key = await runCli(["keys", "create", "--workspace", workspace_id, "--name", "app", "--data-dir", dataDir, "--json"]);
      const created = JSON.parse(key.stdout);
      expect(created.workspace_id).toBe(workspace_id);
      expect(created.api_key).toMatch(/^sieve_/);
      expect(created.key_id).toBeTruthy();
      // The running server accepts the key the CLI just wrote.
      await waitUntilReady(serve.url);
      const headers = { "x-service-api-key": created.api_key, "x-service-workspace-id": workspace_id };
      expect((await fetch(`${serve.url}/v1/evidence`, { headers })).status).toBe(200);

      const list = await runCli(["keys", "list", "--workspace", workspace_id, "--data-dir", dataDir, "--json"]);
      expect(JSON.parse(list.stdout)[0]).toMatchObject({ key_id: created.key_id, name: "app", revoked_at: null });
      expect(list.stdout).not.toContain(created.api_key);

      const revoked = await runCli(["keys", "revoke", created.key_id, "--data-dir", dataDir, "--json"]);
      expect(revoked.code).toBe(0);
      expect((await fetch(`${serve.url}/v1/evidence`, { headers })).status).toBe(401);

      const all = await runCli(["workspaces", "list", "--data-dir", dataDir, "--json"]);
      expect(JSON.parse(all.stdout).map((w: { name: string }) => w.name)).toContain("team");
      // The key never reached the server's log.
      expect(serve.output()).not.toContain(created.api_key);
    } finally {
      serve.child.kill("SIGTERM");
      await serve.child.exited;
    }
  });

  test("keys create refuses a data dir without a database unless --init, and says which database it used", async () => {
    const dataDir = tempDir();
    const refused = await runCli(["keys", "create", "--data-dir", dataDir, "--json"]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(`sieve: no database at ${join(dataDir, "sieve.db")}: pass the --data-dir (or --database) the server uses, or add --init to create a new database there\n`);
    expect(existsSync(join(dataDir, "sieve.db"))).toBe(false);
    for (const args of [["keys", "list"], ["workspaces", "create"]]) expect((await runCli([...args, "--data-dir", dataDir])).code).toBe(2);
    expect(existsSync(join(dataDir, "sieve.db"))).toBe(false);

    const created = await runCli(["keys", "create", "--init", "--data-dir", dataDir, "--json"]);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe(`sieve: database ${join(dataDir, "sieve.db")}\n`);
    expect(JSON.parse(created.stdout).api_key).toMatch(/^sieve_/);
    // Once it exists, no --init is needed.
    const listed = await runCli(["keys", "list", "--data-dir", dataDir, "--json"]);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain(join(dataDir, "sieve.db"));
  });

  test("keys create on an empty data dir makes a default workspace; with several workspaces --workspace is required", async () => {
    const dataDir = tempDir();
    const first = await runCli(["keys", "create", "--init", "--data-dir", dataDir, "--json"]);
    expect(first.code).toBe(0);
    await runCli(["workspaces", "create", "--data-dir", dataDir]);
    const ambiguous = await runCli(["keys", "create", "--data-dir", dataDir]);
    expect(ambiguous.code).not.toBe(0);
    expect(ambiguous.stderr).toContain("--workspace");
    const unknown = await runCli(["keys", "revoke", "nope", "--data-dir", dataDir]);
    expect(unknown.code).not.toBe(0);
  });

  test("--bootstrap-key prints a first key on an empty data dir", async () => {
    const dataDir = tempDir();
    const serve = await spawnServe(["--data-dir", dataDir, "--bootstrap-key"]);
    try {
      for (let i = 0; i < 100 && !serve.output().includes("bootstrap key created"); i++) await Bun.sleep(20);
      expect(serve.output()).toMatch(/bootstrap key created: workspace [0-9a-f-]{36} key sieve_/);
    } finally {
      serve.child.kill("SIGTERM");
      await serve.child.exited;
    }
  });
});

describe("shutdown", () => {
  test("SIGTERM at any moment of start-up, models still loading, ends the process cleanly", async () => {
    // Tearing down an inference thread while it creates its native session used to abort the
    // process ("terminate called after throwing an instance of 'Napi::Error'", exit 134).
    const outcomes: { afterMs: number; code: number | null; aborted: boolean }[] = [];
    for (let afterMs = 0; afterMs <= 420; afterMs += 35) {
      const serve = await spawnServe(["--data-dir", tempDir()]);
      await Bun.sleep(afterMs);
      serve.child.kill("SIGTERM");
      const code = await serve.child.exited;
      outcomes.push({ afterMs, code, aborted: /terminate called|Bun has crashed/.test(serve.output()) });
    }
    expect(outcomes.filter((o) => o.code !== 0 || o.aborted)).toEqual([]);
  });

  test("SIGTERM the moment it logs \"listening\" (start-up is still resuming document jobs) is a graceful stop, not the signal's default", async () => {
    const codes: (number | null)[] = [];
    for (let round = 0; round < 5; round++) {
      const child = spawn([process.execPath, MAIN, "serve", "--port", "0", "--data-dir", tempDir()], { cwd: REPO, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      let output = "";
      const decoder = new TextDecoder();
      // Read on after the signal: a closed pipe would fail the server's next log line instead.
      void (async () => {
        for await (const chunk of child.stdout) output += decoder.decode(chunk);
      })();
      void new Response(child.stderr).text();
      while (!output.includes('"msg":"listening"') && child.exitCode === null) await Bun.sleep(1);
      child.kill("SIGTERM");
      codes.push(await child.exited);
    }
    expect(codes).toEqual([0, 0, 0, 0, 0]); // 143 = ended by the signal before its handler existed
  });
});

describe("rate limiting", () => {
  test("over the per-key limit → 429 with Retry-After", async () => {
    const dataDir = tempDir();
    const created = JSON.parse((await runCli(["keys", "create", "--init", "--data-dir", dataDir, "--json"])).stdout);
    const serve = await spawnServe(["--data-dir", dataDir, "--rate-limit-rpm", "3"]);
    try {
      const headers = { "x-service-api-key": created.api_key, "x-service-workspace-id": created.workspace_id };
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${serve.url}/v1/evidence`, { headers });
        statuses.push(response.status);
        if (response.status === 429) retryAfter = response.headers.get("retry-after");
      }
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses.slice(3)).toEqual([429, 429]);
      expect(Number(retryAfter)).toBeGreaterThan(0);
    } finally {
      serve.child.kill("SIGTERM");
      await serve.child.exited;
    }
  });
});
