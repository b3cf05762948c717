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
 * The peer: the Portkey gateway (no guardrails, no cache) on the same fake provider, fresh prompts
 * at concurrency 1 and 8, installed at bench time into node_modules/.cache (a bench-only download
 * from the npm registry, never an install or test dependency; --peer false skips it). Parallel mode:
 * against a provider with a 100 ms time to first byte, the bare proxy, defaults inline and
 * defaults with --firewall-mode parallel, their requests taking turns with each other and with
 * direct calls. A request-path encoder run (a 16-token text, as bench:embed measures it) is timed
 * in the same run. The summary prints the ratios issue #24 asks for.
 *
 *   bun scripts/bench/proxy.ts [--requests 400] [--embed-backend auto|native|wasm] [--database postgres://…|cluster] [--peer true|false]
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startCluster, type PgCluster } from "../pg/cluster";
import { startPeerGateway, type PeerGateway } from "./peer-gateway";
import { startProcess, startSieveProcess } from "./processes";
import { markdownTable, ms, summarize, type Summary } from "./stats";

const { values } = parseArgs({
  options: { requests: { type: "string", default: "400" }, "embed-backend": { type: "string", default: "auto" }, database: { type: "string", default: "" }, peer: { type: "string", default: "true" } },
});
const REQUEST_COUNT = Number(values.requests);
const BACKEND = values["embed-backend"]!;
/** The provider's time to first byte in the parallel-mode cells (issue #24: ≥ 50 ms is realistic; 100 ms asked). */
const PROVIDER_TTFB_MS = 100;
/** A typical answer length for the output check: ~600 characters built around the prompt, so no window of it was embedded before. */
const LONG_ANSWER = "echo-long";

/** What a cell sends its requests to: an OpenAI-compatible base URL and the headers it needs. */
type Proxy = { url: string; headers: Record<string, string> };

/** Sieve in its own process with default settings (or both stages off), one workspace. */
async function startSieve(upstreamUrl: string, stages: boolean, database = "", extraArgs: string[] = []) {
  const sieve = await startSieveProcess({
    database,
    serveArgs: ["--upstream-url", upstreamUrl, "--anthropic-upstream-url", upstreamUrl.replace(/\/v1$/, ""), "--firewall", String(stages), "--cache", String(stages), "--embed-backend", BACKEND, ...extraArgs],
  });
  return { ...sieve, url: `${sieve.url}/v1`, headers: sieve.tenants[0]!.serviceHeaders };
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
/** Overhead p50 and requests/s of the cells the summary compares, by name. */
const measured = new Map<string, { overheadP50: number; rps: number }>();
async function cell(proxy: Proxy, stages: boolean | string, label: string, scenario: Scenario, database = "sqlite", name?: string) {
  run++;
  // Warm both paths (connections, JIT, model) with prompts of their own before measuring.
  const warm = { ...scenario, concurrency: 4, prompt: fresh("warm"), requests: Math.min(REQUEST_COUNT, 100 * scenario.concurrency) };
  await measure(upstreamUrl, {}, warm);
  await measure(proxy.url, proxy.headers, warm);
  const direct = await measure(upstreamUrl, {}, scenario);
  const proxied = await measure(proxy.url, proxy.headers, scenario);
  record(database, typeof stages === "string" ? stages : stages ? "on" : "off", label, scenario.concurrency, direct, proxied, scenario.requests ?? REQUEST_COUNT, name);
}

type Measured = Summary & { rps: number; cacheHits: number };

/** One row of the table (and, when named, the figures the summary compares). */
function record(database: string, stages: string, label: string, concurrency: number, direct: Measured, proxied: Measured, requests: number, name?: string) {
  if (name) measured.set(name, { overheadP50: proxied.p50 - direct.p50, rps: proxied.rps });
  rows.push([
    database,
    stages,
    label,
    concurrency,
    `${ms(direct.p50)} / ${ms(direct.p95)} / ${ms(direct.p99)}`,
    `${ms(proxied.p50)} / ${ms(proxied.p95)} / ${ms(proxied.p99)}`,
    `${ms(proxied.p50 - direct.p50)} / ${ms(proxied.p99 - direct.p99)}`,
    `${ms(proxied.p50 / direct.p50)}×`,
    `${direct.rps.toFixed(0)} / ${proxied.rps.toFixed(0)}`,
    `${proxied.cacheHits}/${requests}`,
  ]);
}

let peer: PeerGateway | undefined;
let peerNote = "";
if (values.peer !== "false") {
  try {
    peer = await startPeerGateway(upstreamUrl);
    process.on("exit", () => peer?.stop());
  } catch (error) {
    peerNote = `peer gateway not measured: ${(error as Error).message}`;
  }
}

for (const stages of [false, true]) {
  const sieve = await startSieve(upstreamUrl, stages);
  inference = `${sieve.inference?.backend} ONNX Runtime, ${sieve.inference?.threads} inference threads`;
  const tag = stages ? "defaults" : "off";
  await cell(sieve, stages, "fresh prompt, non-stream", { stream: false, concurrency: 1, prompt: fresh("c1") }, "sqlite", `${tag} c1`);
  await cell(sieve, stages, "fresh prompt, non-stream", { stream: false, concurrency: 8, prompt: fresh("c8"), requests: REQUEST_COUNT * SUSTAINED }, "sqlite", `${tag} c8`);
  // The peer's cells right after the bare proxy's, before Sieve's defaults: the three compared within minutes.
  if (!stages && peer) {
    await cell(peer, `peer: ${peer.name}`, "fresh prompt, non-stream", { stream: false, concurrency: 1, prompt: fresh("peer1") }, "–", "peer c1");
    await cell(peer, `peer: ${peer.name}`, "fresh prompt, non-stream", { stream: false, concurrency: 8, prompt: fresh("peer8"), requests: REQUEST_COUNT * SUSTAINED }, "–", "peer c8");
  }
  if (stages) {
    await cell(sieve, stages, "fresh prompt, stream (TTFB)", { stream: true, concurrency: 1, prompt: fresh("s1") });
    await cell(sieve, stages, "fresh prompt, non-stream, 600-char answer (output check)", { stream: false, concurrency: 1, prompt: fresh("long"), model: LONG_ANSWER });
    await cell(sieve, stages, "the same prompt repeated (exact hit)", { stream: false, concurrency: 1, prompt: () => "What should I know about the quarterly migration plan?" }, "sqlite", "exact hit");
    // Cached first, then asked in other words.
    await measure(sieve.url, sieve.headers, { stream: false, concurrency: 1, prompt: (i) => `What should I know about ${topic(i)}?` });
    await cell(sieve, stages, "paraphrase of a cached prompt (semantic hit)", { stream: false, concurrency: 1, prompt: (i) => `What do I need to know about ${topic(i)}?` }, "sqlite", "semantic hit");
    await cell(sieve, stages, "fresh prompt, Responses API, non-stream", { stream: false, concurrency: 1, prompt: fresh("responses"), api: RESPONSES });
    await cell(sieve, stages, "fresh prompt, Anthropic Messages, non-stream", { stream: false, concurrency: 1, prompt: fresh("messages"), api: MESSAGES });
  }
  await sieve.stop();
}

// Parallel mode against a provider with a realistic time to first byte: the bare proxy, defaults
// inline and defaults with --firewall-mode parallel, each on its own server. Their requests (and
// the direct calls) take turns one by one, so a spell of the VM weighs on all four alike: run one
// cell after another, 100 requests each, the bare proxy's overhead moved 1.5–4.2 ms between runs.
{
  const count = Math.min(REQUEST_COUNT, 200);
  const servers = [];
  for (const [label, stages, args, name] of [
    ["off", false, [], "ttfb off"],
    ["on (inline)", true, [], "ttfb inline"],
    ["on (parallel)", true, ["--firewall-mode", "parallel"], "ttfb parallel"],
  ] as const) {
    servers.push({ label, name, sieve: await startSieve(upstreamUrl, stages, "", [...args]) });
  }
  const targets = [{ url: upstreamUrl, headers: {} }, ...servers.map(({ sieve }) => sieve)];
  const scenario = (tag: string): Scenario => ({ stream: false, concurrency: 1, prompt: fresh(`ttfb-${tag}`), model: `ttfb:${PROVIDER_TTFB_MS}`, requests: 1 });
  run++;
  for (const [i, target] of targets.entries()) await measure(target.url, target.headers, { ...scenario(`warm-${i}`), concurrency: 4, requests: 20 });
  const latencies: number[][] = targets.map(() => []);
  const cacheHits = targets.map(() => 0);
  for (let round = 0; round < count; round++) {
    // Each round starts with another of the four, so none is always the first after a pause.
    for (let k = 0; k < targets.length; k++) {
      const i = (round + k) % targets.length;
      const one = await measure(targets[i]!.url, targets[i]!.headers, { ...scenario(`${i}`), prompt: () => fresh(`ttfb-${i}`)(round) });
      latencies[i]!.push(one.p50);
      cacheHits[i]! += one.cacheHits;
    }
  }
  // One request at a time: requests/s is 1000 / the median.
  const [direct, ...proxied] = latencies.map((samples, i): Measured => {
    const summary = summarize(samples);
    return { ...summary, rps: 1000 / summary.p50, cacheHits: cacheHits[i]! };
  });
  servers.forEach(({ label, name }, i) => record("sqlite", label, `fresh prompt, provider TTFB ${PROVIDER_TTFB_MS} ms (interleaved)`, 1, direct!, proxied[i]!, count, name));
  for (const { sieve } of servers) await sieve.stop();
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
peer?.stop();
const encoderRun = timeEncoderRun();

console.log(`\nbench:proxy — ${REQUEST_COUNT} requests per cell (${REQUEST_COUNT * SUSTAINED} for fresh prompts at concurrency 8), fake provider in its own process, Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, ${inference}; 1-min load average ${loadavg()[0].toFixed(2)}\n`);
console.log(
  markdownTable(
    ["database", "firewall+cache", "requests", "concurrency", "direct p50/p95/p99 ms", "via Sieve p50/p95/p99 ms", "overhead p50 / p99 ms", "ratio p50", "req/s direct / via", "cache hits"],
    rows,
  ),
);

/** A request-path encoder run as bench:embed measures it (16 tokens, int8, the pool's threads), in a child process of its own. */
function timeEncoderRun(): { p50: number } | undefined {
  const threads = inference.match(/(\d+) inference threads/)?.[1] ?? "2";
  const backend = inference.startsWith("wasm") ? "wasm" : "native";
  const done = Bun.spawnSync([process.execPath, "scripts/bench/embed.ts", "--backend", backend, "--precision", "int8", "--threads", threads], { cwd: import.meta.dir + "/../.." });
  try {
    const line = done.stdout.toString().trim().split("\n").at(-1)!;
    return { p50: (JSON.parse(line) as { single: Record<number, { p50: number }> }).single[16]!.p50 };
  } catch {
    return undefined;
  }
}

const ratio = (a: string, b: string) => {
  const x = measured.get(a);
  const y = measured.get(b);
  return x && y ? `${ms(x.overheadP50)} / ${ms(y.overheadP50)} ms = ${(x.overheadP50 / y.overheadP50).toFixed(2)}×` : "not measured";
};
const semantic = measured.get("semantic hit");
console.log(`\nSummary (issue #24's targets; overhead p50, this run):`);
console.log(`- defaults vs peer, fresh prompt, c=1: ${ratio("defaults c1", "peer c1")} (target ≤ 2×)`);
console.log(`- defaults vs peer, fresh prompt, c=8: ${ratio("defaults c8", "peer c8")} (target ≤ 1×)`);
console.log(`- fresh prompts/s at c=8: defaults ${measured.get("defaults c8")?.rps.toFixed(0)}, stages off ${measured.get("off c8")?.rps.toFixed(0)}, peer ${measured.get("peer c8")?.rps.toFixed(0) ?? "–"}`);
console.log(`- semantic hit ${semantic ? ms(semantic.overheadP50) : "–"} ms vs one encoder run ${encoderRun ? ms(encoderRun.p50) : "–"} ms + 1 ms (target: at most that)`);
// An exact hit costs what every hit does (HTTP, data protection, the firewall's scoring of memoised windows, evidence) without an encoder run: the floor under the line above.
const exactHit = measured.get("exact hit");
if (semantic && exactHit && encoderRun) {
  console.log(`  of which: an exact hit's overhead ${ms(exactHit.overheadP50)} ms, the encoder run ${ms(encoderRun.p50)} ms, the rest (hand-off to the inference thread, candidates' search and read, guard) ${ms(semantic.overheadP50 - exactHit.overheadP50 - encoderRun.p50)} ms`);
}
console.log(`- provider TTFB ${PROVIDER_TTFB_MS} ms, parallel vs bare proxy: ${ratio("ttfb parallel", "ttfb off")}; inline: ${ratio("ttfb inline", "ttfb off")}`);
if (peerNote) console.log(`- ${peerNote}`);
