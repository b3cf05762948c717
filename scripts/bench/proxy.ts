/**
 * `npm run bench:proxy`: what the proxy adds. In one run, against the same fake provider (its own
 * process): direct calls vs calls through Sieve (its own process, default settings: firewall and
 * cache on, native inference where it loads), with the stages off as the plain-proxy baseline.
 * Cells: fresh prompts at concurrency 1 and 8 (prompts/s sustained), streamed time to first byte,
 * a non-streamed 600-character answer (the output check over the whole answer), the same prompt
 * repeated (exact cache hits) and paraphrases of cached prompts (semantic hits). Prints
 * p50/p95/p99, requests/s, and overhead as difference and ratio. With the stages on, one fresh-prompt
 * row each for OpenAI's Responses API and Anthropic's Messages API, against the same fake provider.
 * With --database (a postgres:// URL, or `cluster` for a throw-away one from scripts/pg/cluster.ts),
 * the exact-hit and fresh-prompt (miss) cells again with Sieve on PostgreSQL, in the same run.
 * Routing (--config, stages off): a route whose first target answers, and one whose first target
 * refuses every connection so the second answers (tried each time, and skipped by its open circuit).
 *
 *   bun scripts/bench/proxy.ts [--requests 400] [--embed-backend auto|native|wasm] [--database postgres://…|cluster]
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startCluster, type PgCluster } from "../pg/cluster";
import { startProcess, startSieveProcess } from "./processes";
import { markdownTable, ms, summarize } from "./stats";

const { values } = parseArgs({
  options: { requests: { type: "string", default: "400" }, "embed-backend": { type: "string", default: "auto" }, database: { type: "string", default: "" } },
});
const REQUEST_COUNT = Number(values.requests);
const BACKEND = values["embed-backend"]!;
/** A typical answer length for the output check: ~600 characters built around the prompt, so no window of it was embedded before. */
const LONG_ANSWER = "echo-long";

/** Sieve in its own process with default settings (or both stages off), one workspace. */
async function startSieve(upstreamUrl: string, stages: boolean, database = "", extraArgs: string[] = []) {
  const sieve = await startSieveProcess({
    database,
    serveArgs: ["--upstream-url", upstreamUrl, "--anthropic-upstream-url", upstreamUrl.replace(/\/v1$/, ""), "--firewall", String(stages), "--cache", String(stages), "--embed-backend", BACKEND, ...extraArgs],
  });
  return { ...sieve, headers: sieve.tenants[0]!.serviceHeaders };
}

/** A provider API to measure: its path under the base URL and a request body for a prompt. */
type BenchApi = { path: string; body: (model: string, prompt: string, stream: boolean) => object };
const CHAT: BenchApi = { path: "/chat/completions", body: (model, content, stream) => ({ model, stream, messages: [{ role: "user", content }] }) };
const RESPONSES: BenchApi = { path: "/responses", body: (model, input, stream) => ({ model, stream, input }) };
const MESSAGES: BenchApi = { path: "/messages", body: (model, content, stream) => ({ model, max_tokens: 64, stream, messages: [{ role: "user", content }] }) };

/** `requests` defaults to --requests. */
type Scenario = { stream: boolean; concurrency: number; prompt: (i: number) => string; model?: string; api?: BenchApi; requests?: number };

/**
 * The fresh-prompt cell at concurrency 8 measures prompts/s *sustained*: five times --requests
 * (~10 s), as one ~2 s burst swung with this VM's noise.
 */
const SUSTAINED = 5;

/** Runs the scenario's requests at its concurrency; counts the responses Sieve served from its cache. */
async function measure(baseUrl: string, headers: Record<string, string>, scenario: Scenario) {
  const count = scenario.requests ?? REQUEST_COUNT;
  const latencies: number[] = [];
  let next = 0;
  let cacheHits = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const api = scenario.api ?? CHAT;
      const body = JSON.stringify(api.body(scenario.model ?? "bench", scenario.prompt(i), scenario.stream));
      const t0 = performance.now();
      const response = await fetch(`${baseUrl}${api.path}`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer sk-bench", ...headers }, body });
      if (scenario.stream) {
        const reader = response.body!.getReader();
        await reader.read(); // first byte
        latencies.push(performance.now() - t0);
        while (!(await reader.read()).done);
      } else {
        const body = await response.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (!response.ok) throw new Error(`${baseUrl}${api.path}: status ${response.status}: ${new TextDecoder().decode(body).slice(0, 300)}`);
      }
      if (!response.ok) throw new Error(`${baseUrl}${api.path}: status ${response.status}`);
      if (response.headers.get("x-service-cache") === "hit") cacheHits++;
    }
  };
  await Promise.all(Array.from({ length: scenario.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { ...summarize(latencies), rps: count / seconds, cacheHits };
}

let run = 0;
/** Distinct prompts per cell (never cached before), so "fresh" really means a new embedding. */
const fresh = (tag: string) => (i: number) => `What is the weather like in city number ${tag}-${run}-${i}?`;
const topic = (i: number) => `the ${["migration", "invoice", "onboarding", "backup", "firewall", "release"][i % 6]} plan number ${i}`;

const upstream = await startProcess([process.execPath, "scripts/bench/fake-upstream-process.ts"], /"url":"([^"]+)"/);
const upstreamUrl = upstream.match[1]!;
// Whatever happens below (a Sieve that fails to start, a failed cell), the provider process does not outlive the bench.
process.on("exit", () => upstream.child.kill("SIGTERM"));
const rows: (string | number)[][] = [];
let inference = "";
async function cell(sieve: Awaited<ReturnType<typeof startSieve>>, stages: boolean, label: string, scenario: Scenario, database = "sqlite") {
  run++;
  // Warm both paths (connections, JIT, model) with prompts of their own before measuring.
  const warm = { ...scenario, concurrency: 4, prompt: fresh("warm"), requests: REQUEST_COUNT };
  await measure(upstreamUrl, {}, warm);
  await measure(`${sieve.url}/v1`, sieve.headers, warm);
  const direct = await measure(upstreamUrl, {}, scenario);
  const proxied = await measure(`${sieve.url}/v1`, sieve.headers, scenario);
  rows.push([
    database,
    stages ? "on" : "off",
    label,
    scenario.concurrency,
    `${ms(direct.p50)} / ${ms(direct.p95)} / ${ms(direct.p99)}`,
    `${ms(proxied.p50)} / ${ms(proxied.p95)} / ${ms(proxied.p99)}`,
    `${ms(proxied.p50 - direct.p50)} / ${ms(proxied.p99 - direct.p99)}`,
    `${ms(proxied.p50 / direct.p50)}×`,
    `${direct.rps.toFixed(0)} / ${proxied.rps.toFixed(0)}`,
    `${proxied.cacheHits}/${scenario.requests ?? REQUEST_COUNT}`,
  ]);
}

for (const stages of [false, true]) {
  const sieve = await startSieve(upstreamUrl, stages);
  inference = `${sieve.inference?.backend} ONNX Runtime, ${sieve.inference?.threads} inference threads`;
  await cell(sieve, stages, "fresh prompt, non-stream", { stream: false, concurrency: 1, prompt: fresh("c1") });
  await cell(sieve, stages, "fresh prompt, non-stream", { stream: false, concurrency: 8, prompt: fresh("c8"), requests: REQUEST_COUNT * SUSTAINED });
  if (stages) {
    await cell(sieve, stages, "fresh prompt, stream (TTFB)", { stream: true, concurrency: 1, prompt: fresh("s1") });
    await cell(sieve, stages, "fresh prompt, non-stream, 600-char answer (output check)", { stream: false, concurrency: 1, prompt: fresh("long"), model: LONG_ANSWER });
    await cell(sieve, stages, "the same prompt repeated (exact hit)", { stream: false, concurrency: 1, prompt: () => "What should I know about the quarterly migration plan?" });
    // Cached first, then asked in other words.
    await measure(`${sieve.url}/v1`, sieve.headers, { stream: false, concurrency: 1, prompt: (i) => `What should I know about ${topic(i)}?` });
    await cell(sieve, stages, "paraphrase of a cached prompt (semantic hit)", { stream: false, concurrency: 1, prompt: (i) => `What do I need to know about ${topic(i)}?` });
    await cell(sieve, stages, "fresh prompt, Responses API, non-stream", { stream: false, concurrency: 1, prompt: fresh("responses"), api: RESPONSES });
    await cell(sieve, stages, "fresh prompt, Anthropic Messages, non-stream", { stream: false, concurrency: 1, prompt: fresh("messages"), api: MESSAGES });
  }
  await sieve.stop();
}

// Routing: the same plain-proxy cells through a routing file (stages off, so the routes' cost shows alone).
{
  const refusing = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const deadPort = refusing.port;
  refusing.stop(true); // nothing listens there now: every connection is refused at once
  const file = join(mkdtempSync(join(tmpdir(), "sieve-bench-routing-")), "routes.yaml");
  writeFileSync(
    file,
    `targets:
  - { name: dead, kind: openai, base_url: "http://127.0.0.1:${deadPort}/v1", breaker: { consecutive_failures: 10000, min_requests: 1000000 } }
  - { name: dead-with-breaker, kind: openai, base_url: "http://127.0.0.1:${deadPort}/v1" }
  - { name: live, kind: openai, base_url: "${upstreamUrl}" }
routes:
  - { match: routed, targets: [live] }
  - { match: fallback, targets: [dead, live], retry: { attempts: 0 } }
  - { match: fallback-breaker, targets: [dead-with-breaker, live], retry: { attempts: 0 } }
`,
  );
  const routed = await startSieve(upstreamUrl, false, "", ["--config", file]);
  await cell(routed, false, "routed, first target answers", { stream: false, concurrency: 1, prompt: fresh("routed"), model: "routed" });
  await cell(routed, false, "routed, first target refuses, second answers", { stream: false, concurrency: 1, prompt: fresh("fallback"), model: "fallback" });
  await cell(routed, false, "routed, first target's circuit open, second answers", { stream: false, concurrency: 1, prompt: fresh("breaker"), model: "fallback-breaker" });
  await routed.stop();
}

// The same exact-hit and miss cells on PostgreSQL, right after SQLite's in this run.
if (values.database) {
  let cluster: PgCluster | undefined;
  const url = values.database === "cluster" ? (cluster = await startCluster()).url : values.database;
  try {
    for (const [database, databaseUrl] of [["sqlite", ""], ["postgres", url]] as const) {
      const on = await startSieve(upstreamUrl, true, databaseUrl);
      await cell(on, true, "fresh prompt, non-stream (miss)", { stream: false, concurrency: 1, prompt: fresh(`db-${database}`) }, database);
      await cell(on, true, "the same prompt repeated (exact hit)", { stream: false, concurrency: 1, prompt: () => `What should I know about the ${database} migration plan?` }, database);
      await on.stop();
    }
  } finally {
    cluster?.stop();
  }
}
upstream.child.kill("SIGTERM");

console.log(`\nbench:proxy — ${REQUEST_COUNT} requests per cell (${REQUEST_COUNT * SUSTAINED} for fresh prompts at concurrency 8), fake provider in its own process, Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, ${inference}; 1-min load average ${loadavg()[0].toFixed(2)}\n`);
console.log(
  markdownTable(
    ["database", "firewall+cache", "requests", "concurrency", "direct p50/p95/p99 ms", "via Sieve p50/p95/p99 ms", "overhead p50 / p99 ms", "ratio p50", "req/s direct / via", "cache hits"],
    rows,
  ),
);
