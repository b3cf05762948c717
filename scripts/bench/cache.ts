/**
 * `npm run bench:cache`: how fast the response cache answers.
 *
 * 1. Lookups in-process through ResponseCache.lookup (keys, SQL, Hamming search, re-scoring, guard,
 *    counters: everything the proxy runs for the cache stage) with 1k, 10k and 100k entries in one
 *    workspace and scope, and 100k spread over 100 workspaces. Entries are stored through
 *    ResponseCache.store with synthetic unit vectors (the embedding itself is the firewall's,
 *    shared through the vector memo, and measured by bench:embed). Semantic hits query a
 *    perturbed copy of a stored vector (cosine ≈ 0.95); semantic misses a random vector.
 *    Baseline in the same run: a vec0 float[384] cosine KNN over the same vectors, the scan the
 *    binary search replaces.
 * 2. End to end over HTTP against the fake provider: a miss (new prompt) vs an exact hit vs a
 *    semantic hit, firewall stage off and on.
 * 3. The verifier on candidate hits: what it adds to a semantic hit per candidate judged (the
 *    stored prompt's facts and the comparison; the query's facts are computed once per lookup),
 *    over the real prompts of the adversarial set, with its antonym, role and scope checks alone
 *    beside it; and what loading the WordNet lexicons costs at start (a fresh process), and building
 *    the synonym map on the first swap weighed.
 *
 *   bun scripts/bench/cache.ts [--lookups 300]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import { guardMatch, opposition, promptFacts } from "../../src/cache/guard";
import { roleSwap } from "../../src/cache/roles";
import { scopeChange } from "../../src/cache/scope";
import { CacheCounters } from "../../src/cache/counters";
import { ResponseCache, type CacheRequest } from "../../src/cache/stage";
import { CacheMetrics } from "../../src/metrics/cache";
import { openaiChat } from "../../src/proxy/dialects/openai-chat";
import { configWith, type Config } from "../../src/config";
import { openSqlite, type SqliteStorage } from "../../src/db/sqlite";
import { Logger } from "../../src/logging/logger";
import { assetPaths } from "../../src/runtime/assets";
import { EmbedderSlot } from "../../src/runtime/embedder-slot";
import { loadEmbedder, startServer } from "../../src/server";
import { WorkspaceScope } from "../../src/tenancy/scope";
import { createApiKey, createWorkspace, type Workspace } from "../../src/tenancy/service";
import { startFakeUpstream } from "../../test/support/fake-upstream";
import { markdownTable, ms, summarize, type Summary } from "./stats";
import { seededRandom } from "../seeded-random";

const { values } = parseArgs({ options: { lookups: { type: "string", default: "300" } } });
const LOOKUPS = Number(values.lookups);
const WARMUP = 30;
const DIMENSIONS = 384;

const config = configWith({ logLevel: "silent" });
const embedder = await loadEmbedder(config);
const slot = EmbedderSlot.of(embedder);
await slot.loaded;

console.log("# Response cache benchmark\n");
await lookupBenchmark();
await endToEndBenchmark();
verifierBenchmark();
process.exit(0);

// ---- 1. lookups ------------------------------------------------------------------------------

/** Text → vector, standing in for the firewall's vector memo with synthetic vectors. */
class SyntheticVectors {
  readonly byText = new Map<string, Float32Array>();
  async embed(text: string) {
    return this.byText.get(text)!;
  }
  peek(text: string) {
    return this.byText.get(text);
  }
}

type Tenant = { scope: WorkspaceScope; workspace: Workspace; prompts: string[] };

async function lookupBenchmark() {
  const dataDir = mkdtempSync(join(tmpdir(), "sieve-bench-cache-"));
  const assets = assetPaths();
  const database = openSqlite({ dataDir, vecExtension: assets.vecExtension, migrationsDir: assets.migrationsDir });
  const vectors = new SyntheticVectors();
  const log = new Logger("silent");
  const cacheCounters = new CacheCounters(log, config.evidenceFlushMs);
  const cache = new ResponseCache({ config, vectors, embedder: slot, log, metrics: { cache: new CacheMetrics() }, cacheCounters });
  const random = seededRandom(42);
  const newTenant = async (name: string): Promise<Tenant> => {
    const workspace = { ...(await createWorkspace(database.db, name)), cacheMaxEntries: 1_000_000 };
    return { scope: new WorkspaceScope(database, workspace.id), workspace, prompts: [] };
  };
  const fill = async (tenant: Tenant, upTo: number) => {
    while (tenant.prompts.length < upTo) {
      const prompt = `Synthetic question number ${tenant.prompts.length} about topic ${tenant.prompts.length % 97} in ${tenant.workspace.name}`;
      vectors.byText.set(prompt, randomUnitVector(random));
      await cache.store(request(tenant, prompt), { object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: `answer to ${prompt}` } }] }, 250);
      tenant.prompts.push(prompt);
    }
  };

  const rows: (string | number)[][] = [];
  const one = await newTenant("bench-one");
  for (const size of [1_000, 10_000, 100_000]) {
    const started = performance.now();
    await fill(one, size);
    process.stderr.write(`filled ${size} entries in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
    rows.push(await measureLookups(`${size / 1000}k, one workspace`, [one], cache, vectors, random, database));
  }
  const spread = await Promise.all(Array.from({ length: 100 }, (_, i) => newTenant(`bench-${i}`)));
  const started = performance.now();
  for (const tenant of spread) await fill(tenant, 1_000);
  process.stderr.write(`filled 100 x 1000 entries in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  rows.push(await measureLookups("100k over 100 workspaces", spread, cache, vectors, random, database));

  console.log("## Lookup latency (ms, in-process, one lookup at a time)\n");
  console.log(
    markdownTable(
      ["entries", "exact hit p50", "exact hit p95", "semantic hit p50", "semantic hit p95", "semantic miss p50", "semantic miss p95", "baseline: float KNN p50", "float KNN p95", "semantic hit / float KNN (p50)"],
      rows,
    ),
  );
  await cacheCounters.close();
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
}

async function measureLookups(label: string, tenants: Tenant[], cache: ResponseCache, vectors: SyntheticVectors, random: () => number, database: SqliteStorage) {
  const pick = () => {
    const tenant = tenants[Math.floor(random() * tenants.length)]!;
    return { tenant, prompt: tenant.prompts[Math.floor(random() * tenant.prompts.length)]! };
  };
  const exact = await time(async () => {
    const { tenant, prompt } = pick();
    if (!(await cache.lookup(request(tenant, prompt)))) throw new Error("expected an exact hit");
  });
  let queries = 0;
  const semanticHit = await time(async () => {
    const { tenant, prompt } = pick();
    const query = `${prompt}, please`;
    vectors.byText.set(query, perturbed(vectors.byText.get(prompt)!, 0.95, random));
    const hit = await cache.lookup(request(tenant, query));
    if (!hit || hit.similarity === 1) throw new Error("expected a semantic hit");
  });
  const semanticMiss = await time(async () => {
    const { tenant } = pick();
    const query = `An unrelated question ${queries++}`;
    vectors.byText.set(query, randomUnitVector(random));
    if (await cache.lookup(request(tenant, query))) throw new Error("expected a miss");
  });
  const floatScan = floatKnnBaseline(tenants, vectors, random, database);
  const row = (s: Summary) => [ms(s.p50, 3), ms(s.p95, 3)];
  return [label, ...row(exact), ...row(semanticHit), ...row(semanticMiss), ...row(floatScan), `${(semanticHit.p50 / floatScan.p50).toFixed(2)}x`];
}

/** The same KNN as a vec0 float[384] cosine scan of the same vectors, partitioned the same way. */
function floatKnnBaseline(tenants: Tenant[], vectors: SyntheticVectors, random: () => number, database: SqliteStorage): Summary {
  const { sqlite } = database;
  sqlite.exec("DROP TABLE IF EXISTS bench_float_vectors");
  sqlite.exec("CREATE VIRTUAL TABLE bench_float_vectors USING vec0(id integer primary key, tenant text partition key, embedding float[384] distance_metric=cosine)");
  const insert = sqlite.query("INSERT INTO bench_float_vectors (id, tenant, embedding) VALUES ($id, $tenant, $embedding)");
  let id = 0;
  sqlite.transaction(() => {
    for (const tenant of tenants) for (const prompt of tenant.prompts) insert.run({ id: ++id, tenant: tenant.workspace.id, embedding: vectors.byText.get(prompt)! });
  })();
  const knn = sqlite.query("SELECT id, distance FROM bench_float_vectors WHERE embedding MATCH $query AND k = 24 AND tenant = $tenant");
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + LOOKUPS; i++) {
    const tenant = tenants[Math.floor(random() * tenants.length)]!;
    const query = randomUnitVector(random);
    const started = performance.now();
    knn.all({ query, tenant: tenant.workspace.id });
    if (i >= WARMUP) samples.push(performance.now() - started);
  }
  sqlite.exec("DROP TABLE bench_float_vectors");
  return summarize(samples);
}

function request(tenant: Tenant, prompt: string): CacheRequest {
  return {
    scope: tenant.scope,
    workspace: tenant.workspace,
    upstreamUrl: "http://provider.invalid/v1",
    view: openaiChat.read({ model: "bench-model", messages: [{ role: "system", content: "You are helpful." }, { role: "user", content: prompt }] }),
    cacheControl: { lookup: true, store: true, ttlSeconds: undefined },
    clientSignal: new AbortController().signal,
  };
}

async function time(run: () => Promise<void>): Promise<Summary> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + LOOKUPS; i++) {
    const started = performance.now();
    await run();
    if (i >= WARMUP) samples.push(performance.now() - started);
  }
  return summarize(samples);
}

function randomUnitVector(random: () => number): Float32Array {
  const vector = new Float32Array(DIMENSIONS);
  for (let i = 0; i < DIMENSIONS; i++) vector[i] = Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
  return normalised(vector);
}

/** A unit vector at cosine ≈ `similarity` to `vector` (random noise is nearly orthogonal in 384 dimensions). */
function perturbed(vector: Float32Array, similarity: number, random: () => number): Float32Array {
  const noise = randomUnitVector(random);
  const scale = Math.sqrt(1 / (similarity * similarity) - 1);
  return normalised(vector.map((value, i) => value + scale * noise[i]!));
}

function normalised(vector: Float32Array): Float32Array {
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

// ---- 2. end to end ---------------------------------------------------------------------------

async function endToEndBenchmark() {
  const upstream = startFakeUpstream();
  const rows: (string | number)[][] = [];
  for (const firewall of [false, true]) rows.push(...(await endToEnd(upstream.url, { firewall })));
  await upstream.stop();
  console.log("\n## Through the proxy (ms, HTTP on 127.0.0.1, fake provider, one request at a time)\n");
  console.log(markdownTable(["firewall", "request", "p50", "p95", "p99", "vs miss (p50)"], rows));
}

async function endToEnd(upstreamUrl: string, stages: Partial<Config>) {
  const dataDir = mkdtempSync(join(tmpdir(), "sieve-bench-cache-e2e-"));
  const server = await startServer({ ...config, port: 0, dataDir, upstreamUrl, ...stages }, { embedder });
  const workspace = await createWorkspace(server.ctx.database.db, "bench");
  const { key } = await createApiKey(new WorkspaceScope(server.ctx.database, workspace.id), "bench", "service");
  const headers = { "content-type": "application/json", authorization: "Bearer sk-bench", "x-service-api-key": key, "x-service-workspace-id": workspace.id };
  const send = async (content: string) => {
    const started = performance.now();
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "gpt-bench", messages: [{ role: "user", content }] }),
    });
    await response.arrayBuffer();
    return { ms: performance.now() - started, cache: response.headers.get("x-service-cache") };
  };
  const topics = ["rivers", "volcanoes", "tides", "glaciers", "deserts", "forests", "comets", "planets"];
  const question = (i: number) => `What should I know about ${topics[i % topics.length]} for lesson ${i}?`;
  const runs = Math.min(LOOKUPS, 200);
  const measure = async (content: (i: number) => string, expected: string) => {
    const samples: number[] = [];
    for (let i = 0; i < WARMUP + runs; i++) {
      const result = await send(content(i));
      if (result.cache !== expected) throw new Error(`expected a ${expected}, got ${result.cache}`);
      if (i >= WARMUP) samples.push(result.ms);
    }
    return summarize(samples);
  };
  const miss = await measure(question, "miss"); // stores WARMUP + runs entries
  const exactHit = await measure(question, "hit");
  const semanticHit = await measure((i) => `${question(i).replace("What should I know about", "What do I need to know about")}`, "hit");
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  const label = stages.firewall ? "on" : "off";
  const row = (name: string, s: Summary) => [label, name, ms(s.p50), ms(s.p95), ms(s.p99), `${(s.p50 / miss.p50).toFixed(2)}x`];
  return [row("miss (new prompt, provider called, stored)", miss), row("exact hit", exactHit), row("semantic hit (paraphrase, embedded first)", semanticHit)];
}

// ---- 3. the verifier -------------------------------------------------------------------------

function verifierBenchmark() {
  const pairs = readFileSync(join(import.meta.dir, "../eval/cache-adversarial.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { stored: string; query: string });
  const time = (run: (pair: { stored: string; query: string }) => unknown) => {
    for (const pair of pairs.slice(0, WARMUP)) run(pair);
    const samples: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (const pair of pairs) {
        const started = performance.now();
        run(pair);
        samples.push(performance.now() - started);
      }
    }
    return summarize(samples);
  };
  const queryFacts = new Map(pairs.map((pair) => [pair.query, promptFacts(pair.query)]));
  const whole = time((pair) => guardMatch(queryFacts.get(pair.query)!, promptFacts(pair.stored)));
  const added = time((pair) => {
    const query = queryFacts.get(pair.query)!;
    const stored = promptFacts(pair.stored);
    return opposition(query, stored) ?? roleSwap(query.tokens, stored.tokens) ?? scopeChange(query.tokens, stored.tokens);
  });
  const queryOnce = time((pair) => promptFacts(pair.query));

  // Loading the lexicons (antonyms, adjectives): a fresh process imports the modules and reports time and heap;
  // then the first swap the scope check weighs, which builds the synonym map.
  const [antonymsModule, scopeModule] = ["antonyms.ts", "scope.ts"].map((file) => JSON.stringify(join(import.meta.dir, "../../src/cache", file)));
  const probe = [
    `const heap = () => (Bun.gc(true), process.memoryUsage().heapUsed / 1048576); const before = heap(); const t = performance.now();`,
    `await import(${antonymsModule}); const { scopeChange } = await import(${scopeModule}); const loaded = performance.now(); const afterLoad = heap();`,
    `scopeChange(["games", "for", "kids"], ["games", "for", "children"]); const swapped = performance.now();`,
    `console.log(JSON.stringify({ ms: loaded - t, heapMb: afterLoad - before, synonymsMs: swapped - loaded, synonymsMb: heap() - afterLoad }));`,
  ].join(" ");
  const loads = Array.from({ length: 5 }, () => JSON.parse(Bun.spawnSync([process.execPath, "-e", probe]).stdout.toString()) as { ms: number; heapMb: number; synonymsMs: number; synonymsMb: number });
  const load = summarize(loads.map((l) => l.ms));
  const synonyms = summarize(loads.map((l) => l.synonymsMs));

  console.log(`\n## The verifier on candidate hits (${pairs.length} prompt pairs of the adversarial set × 5)\n`);
  const row = (label: string, s: Summary) => [label, ms(s.p50, 3), ms(s.p95, 3), ms(s.p99, 3)];
  console.log(
    markdownTable(
      ["step", "p50 ms", "p95 ms", "p99 ms"],
      [
        row("per candidate: stored prompt's facts + all checks", whole),
        row("per candidate: of which antonym, role and scope checks (with the stored facts)", added),
        row("per lookup: the query's facts", queryOnce),
      ],
    ),
  );
  console.log(`\nWordNet lexicons (antonyms, adjectives) load at start (fresh process, 5 runs): p50 ${ms(load.p50)} ms, heap ≈ ${ms(loads[0]!.heapMb, 1)} MB.`);
  console.log(`WordNet synonyms, built on the first swap the scope check weighs (same processes): p50 ${ms(synonyms.p50)} ms once, heap ≈ ${ms(loads[0]!.synonymsMb, 1)} MB.`);
}
