/**
 * Issue #56, defect 6: with 40 MB request bodies holding the event loop, kill -9 lost evidence
 * records acknowledged 948 ms earlier (documented then: 200 ms). The bound README states now:
 * the flush interval plus the longest time the event loop is held at a stretch (measured up to
 * ~1.4 s with two 40 MB chat bodies at a time on the 2-core test VM). Checked here generously:
 * every acknowledged record lost to kill -9 was acknowledged less than 3 s before the kill.
 * The writer's own logic is pinned without timing in test/evidence/writer-wall-time.test.ts.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { REPO, runCli, spawnServe, waitUntilReady } from "../support/process";
import { tempDir } from "../support/sieve";

const FLUSH_MS = 200;
const GENEROUS_BOUND_MS = 3000;
const BIG_BYTES = 40 * 1024 * 1024;

// The provider in a process of its own: this process's loop must stay free to timestamp answers.
let upstream: ReturnType<typeof Bun.spawn>;
let upstreamUrl: string;
beforeAll(async () => {
  upstream = Bun.spawn([process.execPath, join(REPO, "scripts/bench/fake-upstream-process.ts")], { stdout: "pipe", stderr: "inherit" });
  const first = await (upstream.stdout as ReadableStream<Uint8Array>).getReader().read();
  upstreamUrl = JSON.parse(new TextDecoder().decode(first.value)).url;
});
afterAll(() => {
  upstream.kill();
});

test(
  "kill -9 under 40 MB request bodies loses only records acknowledged within the documented bound",
  async () => {
    const dataDir = tempDir();
    const created = await runCli(["keys", "create", "--init", "--data-dir", dataDir, "--json"]);
    expect(created.code).toBe(0);
    const { workspace_id, api_key } = JSON.parse(created.stdout);
    const serve = await spawnServe(["--data-dir", dataDir, "--upstream-url", upstreamUrl, "--evidence-flush-ms", String(FLUSH_MS), "--max-body-bytes", String(64 * 1024 * 1024)]);
    await waitUntilReady(serve.url);
    const headers = { "content-type": "application/json", "x-service-api-key": api_key, "x-service-workspace-id": workspace_id };
    const filler = "word ".repeat(BIG_BYTES / 5);
    const acknowledged = new Map<string, number>();
    let stop = false;
    let n = 0;
    const send = async (content: string) => {
      const response = await fetch(`${serve.url}/v1/chat/completions`, { method: "POST", headers, body: JSON.stringify({ model: "say:ok", messages: [{ role: "user", content }] }) });
      await response.text();
      if (response.ok) acknowledged.set(response.headers.get("x-service-request-id")!, performance.now());
    };
    // Two 40 MB bodies at a time (each distinct: no cache hits) beside two loops of small requests.
    const loop = (big: boolean) => (async () => {
      while (!stop) await send(big ? `${n++} ${filler}` : `small ${n++}`).catch(() => {});
    })();
    const loops = [loop(true), loop(true), loop(false), loop(false)];
    await Bun.sleep(4500);
    const killedAt = performance.now();
    serve.child.kill("SIGKILL");
    stop = true;
    await serve.child.exited;
    await Promise.allSettled(loops);

    const db = new Database(join(dataDir, "sieve.db"), { readonly: true });
    const stored = new Set((db.query("select request_id from evidence").all() as { request_id: string }[]).map((row) => row.request_id));
    db.close();
    const lostAges = [...acknowledged].filter(([id, at]) => at < killedAt && !stored.has(id)).map(([, at]) => Math.round(killedAt - at));
    expect(acknowledged.size).toBeGreaterThan(5); // the load really ran
    expect(lostAges.filter((age) => age > GENEROUS_BOUND_MS)).toEqual([]);
  },
  60_000,
);
