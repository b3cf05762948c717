/**
 * The routing file changes while Sieve serves: a reload under load drops no request, a broken
 * file leaves the last good routes in force, and a broken file at start-up stops the server with
 * the key and line at fault.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { runCli, spawnServe } from "../support/process";
import { startSieve, tempDir, type Tenant, type TestSieve } from "../support/sieve";

let first: FakeUpstream;
let second: FakeUpstream;
let sieve: TestSieve;
let tenant: Tenant;
let file: string;

const routesTo = (target: "first" | "second") => `targets:
  - { name: first, kind: openai, base_url: "${first.url}" }
  - { name: second, kind: openai, base_url: "${second.url}" }
routes:
  - { match: "reload-*", targets: [${target}] }
`;

beforeAll(async () => {
  first = startFakeUpstream();
  second = startFakeUpstream();
  file = join(tempDir(), "routes.yaml");
  writeFileSync(file, routesTo("first"));
  sieve = await startSieve({ config: file, cache: false, firewall: false });
  tenant = await sieve.tenant("reload");
});
afterAll(async () => {
  await sieve.close();
  await first.stop();
  await second.stop();
});

const targetOfOne = async () => {
  const response = await fetch(`${sieve.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...tenant.serviceHeaders },
    body: JSON.stringify({ model: "reload-model", messages: [{ role: "user", content: "hello" }] }),
  });
  await response.arrayBuffer();
  return { status: response.status, target: response.headers.get("x-service-target") };
};

/** Waits (up to ~5 s) until a request is served by `target`. */
async function until(target: string): Promise<void> {
  for (let i = 0; i < 250; i++) {
    if ((await targetOfOne()).target === target) return;
    await Bun.sleep(20);
  }
  throw new Error(`requests never reached ${target}`);
}

describe("reloading the routing file", () => {
  test("a change is picked up under load without a failed request", async () => {
    const results: { status: number; target: string | null }[] = [];
    let running = true;
    const load = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (running) results.push(await targetOfOne());
      }),
    );
    await Bun.sleep(150);
    writeFileSync(file, routesTo("second"));
    await until("second");
    await Bun.sleep(100);
    running = false;
    await load;
    expect(results.length).toBeGreaterThan(10);
    expect(results.filter((r) => r.status !== 200)).toEqual([]);
    expect(new Set(results.map((r) => r.target))).toEqual(new Set(["first", "second"]));
    expect(sieve.logs.some((line) => line.includes('"msg":"routing file reloaded"') && line.includes('"why":"file changed"'))).toBe(true);
  });

  test("a broken file is logged and ignored: the last good routes keep serving", async () => {
    writeFileSync(file, routesTo("first").replace("kind: openai", "kind: azure"));
    for (let i = 0; i < 250 && !sieve.logs.some((line) => line.includes("routing file rejected")); i++) await Bun.sleep(20);
    const rejected = sieve.logs.find((line) => line.includes("routing file rejected"))!;
    expect(rejected).toContain("targets[0].kind (line 2)");
    expect((await targetOfOne()).target).toBe("second");
    writeFileSync(file, routesTo("first"));
    await until("first");
  });
});

describe("the routing file from the command line", () => {
  test("a broken file stops start-up with exit status 2, naming the key and line", async () => {
    const bad = join(tempDir(), "bad.yaml");
    writeFileSync(bad, "targets:\n  - name: a\n    kind: openai\n    base_url: http://127.0.0.1:9/v1\nroutes:\n  - match: x\n    strategy: round-robin\n    targets: [a]\n");
    const result = await runCli(["serve", "--config", bad, "--port", "0", "--data-dir", tempDir()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`sieve: --config ${bad}: routes[0].strategy (line 7): Invalid option: expected one of "fallback"|"loadbalance"`);
    const missing = await runCli(["serve", "--port", "0", "--data-dir", tempDir()], { SIEVE_CONFIG: join(tempDir(), "none.yaml") });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read the file (ENOENT)");
  });

  test("SIGHUP reloads the file", async () => {
    const routes = join(tempDir(), "routes.yaml");
    writeFileSync(routes, routesTo("first"));
    const serve = await spawnServe(["--config", routes, "--data-dir", tempDir()]);
    try {
      expect(serve.output()).toContain('"msg":"routing file loaded"');
      serve.child.kill("SIGHUP");
      for (let i = 0; i < 100 && !serve.output().includes('"why":"SIGHUP"'); i++) await Bun.sleep(20);
      expect(serve.output()).toMatch(/"msg":"routing file reloaded","why":"SIGHUP".*"targets":2,"routes":1/);
    } finally {
      serve.child.kill("SIGTERM");
      await serve.child.exited;
    }
  });
});
