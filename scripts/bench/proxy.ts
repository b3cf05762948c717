/**
 * `npm run bench:proxy`: what the proxy adds. In one run, against the same fake provider (its own
 * process): direct calls vs calls through Sieve (its own process), at concurrency 1 and 32,
 * non-streamed (whole response) and streamed (time to first byte), with the firewall and cache
 * stages off and then on. Prints p50/p95/p99, requests/s, and overhead as difference and ratio.
 * With the stages on, one row each for OpenAI's Responses API and Anthropic's Messages API
 * (non-streamed, concurrency 1) against the same fake provider speaking those dialects.
 *
 *   bun scripts/bench/proxy.ts [--requests 400]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { markdownTable, ms, summarize } from "./stats";

const root = resolve(import.meta.dir, "../..");
const { values } = parseArgs({ options: { requests: { type: "string", default: "400" } } });
const REQUESTS = Number(values.requests);

async function startProcess(command: string[], ready: RegExp): Promise<{ child: ReturnType<typeof Bun.spawn>; match: RegExpExecArray }> {
  const child = Bun.spawn(command, { cwd: root, stdout: "pipe", stderr: "inherit" });
  let output = "";
  const decoder = new TextDecoder();
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`process exited before ready: ${command.join(" ")}\n${output}`);
    output += decoder.decode(value);
    const match = ready.exec(output);
    if (match) {
      void (async () => {
        while (!(await reader.read()).done);
      })();
      return { child, match };
    }
  }
}

async function startSieve(upstreamUrl: string, stages: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), "sieve-bench-"));
  const created = Bun.spawnSync([process.execPath, "src/main.ts", "keys", "create", "--data-dir", dataDir, "--json"], { cwd: root });
  const { workspace_id, api_key } = JSON.parse(created.stdout.toString());
  const { child, match } = await startProcess(
    [process.execPath, "src/main.ts", "serve", "--port", "0", "--data-dir", dataDir, "--upstream-url", upstreamUrl, "--anthropic-upstream-url", upstreamUrl.replace(/\/v1$/, ""), "--log-level", "info", "--firewall", String(stages), "--cache", String(stages)],
    /"msg":"listening","url":"([^"]+)"/,
  );
  const url = match[1]!;
  for (let i = 0; i < 400; i++) {
    if ((await fetch(`${url}/readyz`).catch(() => undefined))?.ok) break;
    await Bun.sleep(50);
  }
  return { url, headers: { "x-service-api-key": api_key, "x-service-workspace-id": workspace_id }, stop: () => (child.kill("SIGTERM"), child.exited.then(() => rmSync(dataDir, { recursive: true, force: true }))) };
}

type Scenario = { stream: boolean; concurrency: number };

/** A provider API to measure: its path under the base URL and a request body for a prompt. */
type BenchApi = { name: string; path: string; body: (prompt: string, stream: boolean) => object };
const CHAT: BenchApi = { name: "chat", path: "/chat/completions", body: (content, stream) => ({ model: "bench", stream, messages: [{ role: "user", content }] }) };
const DIALECT_ROWS: BenchApi[] = [
  { name: "responses", path: "/responses", body: (input, stream) => ({ model: "bench", stream, input }) },
  { name: "messages", path: "/messages", body: (content, stream) => ({ model: "bench", max_tokens: 64, stream, messages: [{ role: "user", content }] }) },
];

/** Runs REQUESTS requests at the given concurrency; every request has a distinct prompt (no cache hits). */
async function measure(baseUrl: string, headers: Record<string, string>, scenario: Scenario, tag: string, api: BenchApi = CHAT) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < REQUESTS) {
      const i = next++;
      const body = JSON.stringify(api.body(`What is the weather like in city number ${tag}-${i}?`, scenario.stream));
      const t0 = performance.now();
      const response = await fetch(`${baseUrl}${api.path}`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer sk-bench", ...headers }, body });
      if (scenario.stream) {
        const reader = response.body!.getReader();
        await reader.read(); // first byte
        latencies.push(performance.now() - t0);
        while (!(await reader.read()).done);
      } else {
        await response.arrayBuffer();
        latencies.push(performance.now() - t0);
      }
      if (!response.ok) throw new Error(`status ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: scenario.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { ...summarize(latencies), rps: REQUESTS / seconds };
}

const upstream = await startProcess([process.execPath, "scripts/bench/fake-upstream-process.ts"], /"url":"([^"]+)"/);
const upstreamUrl = upstream.match[1]!;
const rows: (string | number)[][] = [];
type Measured = Awaited<ReturnType<typeof measure>>;
function addRow(stages: boolean, mode: string, concurrency: number, direct: Measured, proxied: Measured) {
  rows.push([
    `${stages ? "on" : "off"}`,
    mode,
    concurrency,
    `${ms(direct.p50)} / ${ms(direct.p95)} / ${ms(direct.p99)}`,
    `${ms(proxied.p50)} / ${ms(proxied.p95)} / ${ms(proxied.p99)}`,
    `${ms(proxied.p50 - direct.p50)} / ${ms(proxied.p99 - direct.p99)}`,
    `${ms(proxied.p50 / direct.p50)}×`,
    `${direct.rps.toFixed(0)} / ${proxied.rps.toFixed(0)}`,
  ]);
}
for (const stages of [false, true]) {
  const sieve = await startSieve(upstreamUrl, stages);
  for (const scenario of [
    { stream: false, concurrency: 1 },
    { stream: false, concurrency: 32 },
    { stream: true, concurrency: 1 },
    { stream: true, concurrency: 32 },
  ]) {
    const tag = `${stages}-${scenario.stream}-${scenario.concurrency}`;
    // Warm both paths (connections, JIT, embedder) before measuring.
    await measure(upstreamUrl, {}, { ...scenario, concurrency: 4 }, `warm-d-${tag}`);
    await measure(`${sieve.url}/v1`, sieve.headers, { ...scenario, concurrency: 4 }, `warm-p-${tag}`);
    const direct = await measure(upstreamUrl, {}, scenario, `d-${tag}`);
    const proxied = await measure(`${sieve.url}/v1`, sieve.headers, scenario, `p-${tag}`);
    addRow(stages, scenario.stream ? "stream (TTFB)" : "non-stream", scenario.concurrency, direct, proxied);
  }
  // One row per other dialect, stages on: the same measurement through their adapters.
  for (const api of stages ? DIALECT_ROWS : []) {
    const scenario = { stream: false, concurrency: 1 };
    await measure(upstreamUrl, {}, { ...scenario, concurrency: 4 }, `warm-d-${api.name}`, api);
    await measure(`${sieve.url}/v1`, sieve.headers, { ...scenario, concurrency: 4 }, `warm-p-${api.name}`, api);
    const direct = await measure(upstreamUrl, {}, scenario, `d-${api.name}`, api);
    const proxied = await measure(`${sieve.url}/v1`, sieve.headers, scenario, `p-${api.name}`, api);
    addRow(stages, `${api.name} non-stream`, scenario.concurrency, direct, proxied);
  }
  await sieve.stop();
}
upstream.child.kill("SIGTERM");

console.log(`\nbench:proxy — ${REQUESTS} requests per cell, distinct prompts (cache misses), fake provider in its own process, Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores\n`);
console.log(
  markdownTable(
    ["firewall+cache", "mode", "concurrency", "direct p50/p95/p99 ms", "via Sieve p50/p95/p99 ms", "overhead p50 / p99 ms", "ratio p50", "req/s direct / via"],
    rows,
  ),
);
