/**
 * Issue #28 (hardening round 2), defect 1: a provider's answer was held in memory without a
 * limit — three parallel 1.2 GB answers took RSS to 7.8 GB, and a streamed event whose line never
 * ends grew without bound while the client received nothing. Now one answer costs at most
 * --max-response-bytes and one event at most --max-sse-event-bytes, on every dialect; a
 * workspace's upstream_url is an admin's setting.
 *
 * `sieve serve` runs as its own process so the kernel's peak RSS can be read (and a watchdog
 * kills it past the bound, so the test fails instead of taking the machine down).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryWatch } from "../support/memory-watch";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { spawnServe, tenantFromCli, waitUntilReady, type ServeProcess } from "../support/process";
import { tempDir, type Tenant } from "../support/sieve";

const MAX_RESPONSE = 4 * 1024 * 1024;
const MAX_EVENT = 256 * 1024;
/** Far above what a capped answer costs, far below what holding the answers would. */
const ALLOWED_GROWTH_MB = 300;

let upstream: FakeUpstream;
let serve: ServeProcess;
let watch: MemoryWatch;
let tenant: Tenant;

beforeAll(async () => {
  upstream = startFakeUpstream();
  const dataDir = tempDir();
  tenant = await tenantFromCli(dataDir);
  serve = await spawnServe([
    "--data-dir", dataDir,
    "--upstream-url", upstream.url,
    "--anthropic-upstream-url", upstream.anthropicUrl,
    "--max-response-bytes", String(MAX_RESPONSE),
    "--max-sse-event-bytes", String(MAX_EVENT),
    "--cache", "false",
  ]);
  await waitUntilReady(serve.url);
  watch = new MemoryWatch(serve.child);
});
afterAll(async () => {
  watch?.stop();
  serve?.child.kill("SIGTERM");
  await serve?.child.exited;
  await upstream?.stop();
});

const headers = () => ({ "content-type": "application/json", "X-Service-Api-Key": tenant.apiKey, "X-Service-Workspace-Id": tenant.workspaceId });

const BODIES: Record<string, (model: string, stream: boolean) => object> = {
  "/v1/chat/completions": (model, stream) => ({ model, stream, messages: [{ role: "user", content: "the whole archive please" }] }),
  "/v1/responses": (model, stream) => ({ model, stream, input: "the whole archive please" }),
  "/v1/messages": (model, stream) => ({ model, stream, max_tokens: 64, messages: [{ role: "user", content: "the whole archive please" }] }),
};

const post = (path: string, model: string, stream: boolean) => fetch(`${serve.url}${path}`, { method: "POST", headers: headers(), body: JSON.stringify(BODIES[path]!(model, stream)) });

describe("answers are bounded in memory", () => {
  test("1 GB non-streamed answers, three at once on each dialect: 502 naming --max-response-bytes, memory bounded", async () => {
    const baseline = watch.start(ALLOWED_GROWTH_MB);
    const responses = await Promise.all(Object.keys(BODIES).flatMap((path) => [1, 2, 3].map(() => post(path, `huge:${1024 ** 3}`, false))));
    for (const response of responses) {
      expect(response.status).toBe(502);
      expect(await response.text()).toContain(`--max-response-bytes (${MAX_RESPONSE} bytes)`);
    }
    expect(watch.killedAtMb).toBeNull();
    expect(watch.peakMb() - baseline).toBeLessThan(ALLOWED_GROWTH_MB);
  });

  test("a 1 GB stream and a stream whose one event never ends: each ends with the dialect's error event naming the flag, the provider is cut off", async () => {
    const baseline = watch.start(ALLOWED_GROWTH_MB);
    const abortedBefore = upstream.aborted();
    const long = await post("/v1/chat/completions", `huge:${1024 ** 3}`, true);
    const endless = await post("/v1/chat/completions", "endless-event", true);
    const [longText, endlessText] = await Promise.all([long.text(), endless.text()]);
    expect(longText.length).toBeLessThan(MAX_RESPONSE + 64 * 1024);
    expect(longText).toContain("--max-response-bytes");
    expect(endlessText).toContain("--max-sse-event-bytes");
    expect(endlessText.length).toBeLessThan(4096); // nothing of the unfinished event was relayed
    for (let i = 0; i < 100 && upstream.aborted() < abortedBefore + 2; i++) await Bun.sleep(20);
    expect(upstream.aborted()).toBeGreaterThanOrEqual(abortedBefore + 2);
    const messages = await (await post("/v1/messages", `huge:${1024 ** 3}`, true)).text();
    expect(messages).toContain("event: error");
    expect(messages).toContain("--max-response-bytes");
    expect(watch.killedAtMb).toBeNull();
    expect(watch.peakMb() - baseline).toBeLessThan(ALLOWED_GROWTH_MB);
  });

  test("an answer within the limits is relayed whole", async () => {
    const response = await post("/v1/chat/completions", `huge:${MAX_RESPONSE - 200 * 1024}`, false);
    expect(response.status).toBe(200);
    expect((await response.text()).length).toBeGreaterThan(MAX_RESPONSE - 200 * 1024);
  });
});
