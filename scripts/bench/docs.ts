/**
 * bench:docs — document processing speed on a generated PDF (100 pages by default).
 *
 * 1. Baseline, without embedding: parse, and parse + chunk (recursive, 512 tokens), in process;
 *    p50/p95 over several runs.
 * 2. With embedding: the whole job through the HTTP API of Sieve running in a process of its own,
 *    as users run it (upload → variant completed: parse, chunk, embed, write), p50/p95, and its
 *    ratio to the baseline.
 * 3. The next version of the same PDF (a paragraph inserted on page 1, one sentence changed on
 *    every tenth page) uploaded with parent_document_id: exact chunks copy their parent's
 *    embedding, so the ratio to a first version shows what version dedup saves.
 * 4. Two first versions at once, with GET /healthz asked every 20 ms from this process meanwhile:
 *    what a health check (or any other request) waits behind document processing; run with the
 *    jobs' status read four times a second, then every 20 ms (the status reads are requests too).
 * 5. A first version while the proxy serves fresh chat prompts (firewall and cache on, the fake
 *    provider) from 4 clients at once, against each alone on the same server: what document
 *    processing and proxy traffic cost each other (the firewall's texts run before a job's chunks).
 * 6. Chunk flags (the firewall's data channel on every new chunk, issue #51): the same first and next
 *    versions on two servers, one with --firewall-document-chunks false (no chunk scan), one with the defaults,
 *    taking turns (one job at a time): what the scan adds per job and per chunk; then, on the second
 *    server, how long a workspace's stored chunks take to be scanned again after a pattern change.
 * Reports the Sieve process's peak RSS. Prints markdown tables.
 *
 *   bun scripts/bench/docs.ts [--pages 100] [--runs 5] [--job-runs 2] [--flag-runs 3] [--chunk-flags-only]
 * (--chunk-flags-only: 1., then 6. alone)
 *
 * With --formats: parse + chunk per format instead, OCR included, then /healthz while a 10-page
 * scan is processed against idle (docs-formats.ts); --formats --ocr-health-only: that last part alone.
 */
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { chunkDocument } from "../../src/documents/chunking";
import { parseDocument } from "../../src/documents/parsing";
import { ProseGenerator } from "../../test/dedup/fixtures/prose";
import { DocumentsClient } from "../../test/documents/api-client";
import { makePdf, type PdfElement } from "../../test/fixtures-gen/make-pdf";
import { sharedEmbedder, type Tenant } from "../../test/support/sieve";
import { startProcess, startSieveProcess } from "./processes";

const { values: args } = parseArgs({
  options: { pages: { type: "string", default: "100" }, runs: { type: "string", default: "5" }, "job-runs": { type: "string", default: "2" }, "flag-runs": { type: "string", default: "3" }, "chunk-flags-only": { type: "boolean", default: false }, formats: { type: "boolean", default: false }, "ocr-health-only": { type: "boolean", default: false } },
});
if (args.formats) {
  const formats = await import("./docs-formats.ts");
  if (!args["ocr-health-only"]) await formats.benchFormats(Number(args.runs));
  await formats.benchHealthDuringOcr();
  process.exit(0);
}
const PAGES = Number(args.pages);
const RUNS = Number(args.runs);
const JOB_RUNS = Number(args["job-runs"]);
const FLAG_RUNS = Number(args["flag-runs"]);

type Page = { heading: string; paragraphs: string[][]; table: string[][] | null };

/** One numbered section per page, a numbered subsection, three paragraphs; a table on every tenth page. */
function pagesOf(gen: ProseGenerator, count: number): Page[] {
  return Array.from({ length: count }, (_, i) => ({
    heading: `${i + 1} Topic ${i + 1}`,
    paragraphs: Array.from({ length: 3 }, () => gen.proseParagraph(5).sentences),
    table: i % 10 === 4 ? [["Site", "Samples", "Mean (mg/l)"], ...Array.from({ length: 5 }, (_, r) => [`S${i}-${r}`, String(10 + r), (r * 1.7).toFixed(1)])] : null,
  }));
}

function renderPdf(pages: Page[]): Promise<Uint8Array> {
  return makePdf(
    pages.map((page, i): PdfElement[] => [
      { heading: page.heading, level: 1 },
      { paragraph: page.paragraphs[0].join(" ") },
      { heading: `${i + 1}.1 Details`, level: 2 },
      ...page.paragraphs.slice(1).map((sentences) => ({ paragraph: sentences.join(" ") })),
      ...(page.table ? [{ caption: `Table ${i + 1}: Measurements` }, { table: page.table }] : []),
    ]),
  );
}

/** The next version: a new first paragraph, one sentence replaced on every tenth page. */
function nextVersion(gen: ProseGenerator, pages: Page[]): Page[] {
  return pages.map((page, i) => ({
    ...page,
    paragraphs: page.paragraphs.map((sentences, p) => {
      if (i === 0 && p === 0) return [...gen.proseParagraph(3).sentences, ...sentences];
      if (i % 10 === 7 && p === 1) return sentences.map((s, k) => (k === 2 ? gen.sentence() : s));
      return sentences;
    }),
  }));
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const seconds = (ms: number) => (ms / 1000).toFixed(2);
const stats = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
};

async function timed(runs: number, run: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await run();
    ms.push(performance.now() - start);
  }
  return stats(ms);
}

const gen = new ProseGenerator(2024);
const v1Pages = pagesOf(gen, PAGES);
const v1 = await renderPdf(v1Pages);
const v2 = await renderPdf(nextVersion(gen, v1Pages));
const embedder = await sharedEmbedder();
const countTokens = (text: string) => embedder.countTokens(text);

// 1. Without embedding.
await parseDocument("bench.pdf", v1); // warm-up
const parse = await timed(RUNS, () => parseDocument("bench.pdf", v1));
const parsed = await parseDocument("bench.pdf", v1);
const drafts = await chunkDocument(parsed, { strategy: "recursive", chunkSize: 512, chunkOverlap: 50, countTokens });
const chunkCount = drafts.length;
const parseAndChunk = await timed(RUNS, async () => chunkDocument(await parseDocument("bench.pdf", v1), { strategy: "recursive", chunkSize: 512, chunkOverlap: 50, countTokens }));

// 2. and 3. Through a real server: the chunks are embedded by the inference pool's worker
//    threads at bulk priority, so the /healthz probe shows what the event loop does meanwhile.
type JobRun = { ms: number; chunks: number; computed: number; reused: number; status: number };
/** How often a timed job's status is read: its time is known to within this. */
const TIMING_POLL_MS = 20;
async function uploadJob(api: DocumentsClient, filename: string, bytes: Uint8Array, fields: Record<string, string> = {}, pollMs = TIMING_POLL_MS): Promise<JobRun & { documentId: string }> {
  const start = performance.now();
  const response = await api.uploadFile(filename, bytes, fields);
  const upload: any = await response.json();
  if (response.status !== 201 && response.status !== 202) throw new Error(`upload failed: ${response.status} ${JSON.stringify(upload)}`);
  let variant: any;
  for (;;) {
    variant = await api.getJson(`/api/documents/variants/${upload.variant_id}`);
    if (variant.status === "completed" || variant.status === "failed") break;
    await Bun.sleep(pollMs);
  }
  if (variant.status === "failed") throw new Error(`job failed: ${variant.error}`);
  const ms = performance.now() - start;
  return { ms, chunks: variant.chunks_count, computed: variant.embeddings_computed, reused: variant.embeddings_reused, status: response.status, documentId: upload.document_id };
}

if (args["chunk-flags-only"]) {
  await chunkFlagCost();
  process.exit(0);
}

/** How often the health check is asked while two jobs run. */
const PROBE_INTERVAL_MS = 20;
/**
 * Two first versions at once, twice: their clients reading the job status four times a second,
 * as an application would, then every 20 ms (100 status requests a second between the two),
 * which adds its own work to the event loop the probe waits on.
 */
const CONCURRENT_POLLS_MS = [250, TIMING_POLL_MS];

type Concurrent = { pollMs: number; bothDoneMs: number; probe: { p50: number; p95: number }; probeMax: number; probes: number };

/** Two first versions at once, GET /healthz asked meanwhile: how long another request waits behind document processing. */
async function twoAtOnce(url: string, tenants: Tenant[], pollMs: number): Promise<Concurrent> {
  const probeMs: number[] = [];
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const start = performance.now();
      await fetch(`${url}/healthz`);
      probeMs.push(performance.now() - start);
      await Bun.sleep(PROBE_INTERVAL_MS);
    }
  })();
  const started = performance.now();
  await Promise.all(tenants.map((tenant) => uploadJob(new DocumentsClient(url, tenant), "bench.pdf", v1, {}, pollMs)));
  const bothDoneMs = performance.now() - started;
  probing = false;
  await probe;
  return { pollMs, bothDoneMs, probe: stats(probeMs), probeMax: Math.max(...probeMs), probes: probeMs.length };
}

async function jobs() {
  // A fresh workspace for each upload of v1, so the same bytes are never an exact duplicate.
  const firstNames = Array.from({ length: JOB_RUNS }, (_, run) => `bench-${run}`);
  const concurrentNames = CONCURRENT_POLLS_MS.flatMap((pollMs) => [`bench-two-${pollMs}-a`, `bench-two-${pollMs}-b`]);
  const sieve = await startSieveProcess({ tenants: [...firstNames, ...concurrentNames] });
  const firstVersions: JobRun[] = [];
  const nextVersions: JobRun[] = [];
  for (let run = 0; run < JOB_RUNS; run++) {
    const api = new DocumentsClient(sieve.url, sieve.tenants[run]!);
    const first = await uploadJob(api, "bench.pdf", v1);
    firstVersions.push(first);
    nextVersions.push(await uploadJob(api, "bench-v2.pdf", v2, { parent_document_id: first.documentId }));
  }
  const concurrent: Concurrent[] = [];
  for (const [i, pollMs] of CONCURRENT_POLLS_MS.entries()) {
    concurrent.push(await twoAtOnce(sieve.url, sieve.tenants.slice(JOB_RUNS + 2 * i, JOB_RUNS + 2 * i + 2), pollMs));
  }
  const peakRssMb = sieve.peakRssMb();
  const inference = sieve.inference;
  await sieve.stop();
  return { firstVersions, nextVersions, concurrent, peakRssMb, inference };
}
const result = await jobs();
const { firstVersions, nextVersions } = result;

const firstJob = stats(firstVersions.map((r) => r.ms));
const nextJob = stats(nextVersions.map((r) => r.ms));
const perSecond = (count: number, ms: number) => ((count * 1000) / ms).toFixed(1);

console.log(`\n### bench:docs — ${PAGES}-page generated PDF (${(v1.length / 1024).toFixed(0)} KiB), ${chunkCount} chunks (recursive, 512 tokens, overlap 50)\n`);
console.log("| stage | runs | p50 s | p95 s | pages/s (p50) | chunks/s (p50) | ratio to parse + chunk |");
console.log("|---|---|---|---|---|---|---|");
console.log(`| parse (unpdf) | ${RUNS} | ${seconds(parse.p50)} | ${seconds(parse.p95)} | ${perSecond(PAGES, parse.p50)} | – | ${(parse.p50 / parseAndChunk.p50).toFixed(2)} |`);
console.log(`| parse + chunk, no embedding (baseline) | ${RUNS} | ${seconds(parseAndChunk.p50)} | ${seconds(parseAndChunk.p95)} | ${perSecond(PAGES, parseAndChunk.p50)} | ${perSecond(chunkCount, parseAndChunk.p50)} | 1.00 |`);
console.log(
  `| full job via HTTP, first version (parse, chunk, embed, store) | ${JOB_RUNS} | ${seconds(firstJob.p50)} | ${seconds(firstJob.p95)} | ${perSecond(PAGES, firstJob.p50)} | ${perSecond(firstVersions[0].chunks, firstJob.p50)} | ${(firstJob.p50 / parseAndChunk.p50).toFixed(1)} |`,
);
console.log(
  `| full job via HTTP, next version (parent_document_id) | ${JOB_RUNS} | ${seconds(nextJob.p50)} | ${seconds(nextJob.p95)} | ${perSecond(PAGES, nextJob.p50)} | ${perSecond(nextVersions[0].chunks, nextJob.p50)} | ${(nextJob.p50 / parseAndChunk.p50).toFixed(1)} |`,
);
console.log("\n| version | chunks | embeddings computed | embeddings copied | job time vs first version |");
console.log("|---|---|---|---|---|");
console.log(`| first | ${firstVersions[0].chunks} | ${firstVersions[0].computed} | ${firstVersions[0].reused} | 1.00 |`);
console.log(`| next (1 paragraph inserted, 1 sentence changed on every 10th page) | ${nextVersions[0].chunks} | ${nextVersions[0].computed} | ${nextVersions[0].reused} | ${(nextJob.p50 / firstJob.p50).toFixed(2)} |`);
const { backend, threads } = result.inference ?? { backend: "?", threads: "?" };
console.log(`\n| two first versions at once (${backend} ONNX Runtime, ${threads} inference threads) | both done s (to the poll) | GET /healthz every ${PROBE_INTERVAL_MS} ms during the jobs, p50 / p95 / max ms (probes) |`);
console.log("|---|---|---|");
for (const run of result.concurrent) {
  const polling = `${PAGES} pages × 2, each job's status read every ${run.pollMs} ms`;
  console.log(`| ${polling} | ${seconds(run.bothDoneMs)} | ${run.probe.p50.toFixed(1)} / ${run.probe.p95.toFixed(1)} / ${run.probeMax.toFixed(0)} (${run.probes}) |`);
}
const peak = result.peakRssMb === undefined ? "not measured (no /proc)" : `${result.peakRssMb.toFixed(0)} MiB`;
console.log(`\nPeak RSS of the Sieve process (server and inference pool, all jobs above): ${peak}. ${cpus().length} cores; 1-min load average ${loadavg()[0].toFixed(2)} at the end.`);

// 5. Document processing and proxy traffic on one server.
const PROXY_CLIENTS = 4;
type ProxyLoad = { p50: number; p95: number; requests: number; perSecond: number };
async function proxyLoad(url: string, tenant: Tenant, until: () => boolean, tag: string): Promise<ProxyLoad> {
  const latencies: number[] = [];
  const started = performance.now();
  let n = 0;
  await Promise.all(
    Array.from({ length: PROXY_CLIENTS }, async () => {
      while (!until()) {
        const start = performance.now();
        const response = await fetch(`${url}/v1/chat/completions`, {
          method: "POST",
          headers: { ...tenant.serviceHeaders, "content-type": "application/json", authorization: "Bearer sk-bench" },
          body: JSON.stringify({ model: "bench", messages: [{ role: "user", content: `What is the weather like in city number ${tag}-${n++}?` }] }),
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`proxy: ${response.status}`);
        latencies.push(performance.now() - start);
      }
    }),
  );
  return { ...stats(latencies), requests: latencies.length, perSecond: (latencies.length * 1000) / (performance.now() - started) };
}
{
  const upstream = await startProcess([process.execPath, "scripts/bench/fake-upstream-process.ts"], /"url":"([^"]+)"/);
  const sieve = await startSieveProcess({ serveArgs: ["--upstream-url", upstream.match[1]!], tenants: ["proxy", "docs-alone", "docs-loaded"] });
  try {
    const [proxyTenant, aloneTenant, loadedTenant] = sieve.tenants as [Tenant, Tenant, Tenant];
    await proxyLoad(sieve.url, proxyTenant, ((count) => () => count++ >= 50)(0), "warm");
    const aloneRequests = 400;
    let sent = 0;
    const proxyAlone = await proxyLoad(sieve.url, proxyTenant, () => sent++ >= aloneRequests, "alone");
    const jobAlone = await uploadJob(new DocumentsClient(sieve.url, aloneTenant), "bench.pdf", v1, {}, 250);
    let jobDone = false;
    const loadedJob = uploadJob(new DocumentsClient(sieve.url, loadedTenant), "bench.pdf", v1, {}, 250).finally(() => (jobDone = true));
    const proxyDuring = await proxyLoad(sieve.url, proxyTenant, () => jobDone, "during");
    const jobDuring = await loadedJob;
    console.log(`\n| one server: a ${PAGES}-page first version and ${PROXY_CLIENTS} proxy clients (fresh prompts, firewall + cache on) | job s | proxy p50 / p95 ms | proxy requests/s |`);
    console.log("|---|---|---|---|");
    console.log(`| proxy alone (${proxyAlone.requests} requests) | – | ${proxyAlone.p50.toFixed(1)} / ${proxyAlone.p95.toFixed(1)} | ${proxyAlone.perSecond.toFixed(0)} |`);
    console.log(`| job alone | ${seconds(jobAlone.ms)} | – | – |`);
    console.log(
      `| both at once (${proxyDuring.requests} requests) | ${seconds(jobDuring.ms)} (${(jobDuring.ms / jobAlone.ms).toFixed(2)}× alone) | ${proxyDuring.p50.toFixed(1)} / ${proxyDuring.p95.toFixed(1)} (${(proxyDuring.p50 / proxyAlone.p50).toFixed(2)}× alone at p50) | ${proxyDuring.perSecond.toFixed(0)} |`,
    );
  } finally {
    await sieve.stop();
    upstream.child.kill("SIGTERM");
  }
}

await chunkFlagCost();

/** 6. Chunk flags: the same jobs with and without the firewall's chunk scan, taking turns. */
async function chunkFlagCost(): Promise<void> {
  const tenants = Array.from({ length: FLAG_RUNS + 1 }, (_, run) => `flags-${run}`);
  const servers = { off: await startSieveProcess({ serveArgs: ["--firewall-document-chunks", "false"], tenants }), on: await startSieveProcess({ tenants }) };
  try {
    const runs = { off: { first: [] as JobRun[], next: [] as JobRun[], flagged: [] as number[] }, on: { first: [] as JobRun[], next: [] as JobRun[], flagged: [] as number[] } };
    for (let run = 0; run <= FLAG_RUNS; run++) {
      // Run 0 warms each server up (model, firewall patterns) and is not counted; then the order alternates.
      for (const side of run % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const)) {
        const api = new DocumentsClient(servers[side].url, servers[side].tenants[run]!);
        const first = await uploadJob(api, "bench.pdf", v1);
        const next = await uploadJob(api, "bench-v2.pdf", v2, { parent_document_id: first.documentId });
        if (run === 0) continue;
        runs[side].first.push(first);
        runs[side].next.push(next);
        runs[side].flagged.push((await api.getJson(`/api/documents/${first.documentId}`)).flagged_chunks ?? 0, (await api.getJson(`/api/documents/${next.documentId}`)).flagged_chunks ?? 0);
      }
    }
    console.log(`\n| chunk flags, ${PAGES}-page PDF (${FLAG_RUNS} runs each, taking turns) | --firewall-document-chunks false p50 / p95 s | defaults (scan) p50 / p95 s | ratio at p50 | added per chunk scanned (p50) | flagged chunks |`);
    console.log("|---|---|---|---|---|---|");
    for (const version of ["first", "next"] as const) {
      const off = stats(runs.off[version].map((r) => r.ms));
      const on = stats(runs.on[version].map((r) => r.ms));
      const chunks = runs.on[version][0]!.chunks;
      // A first version scans every chunk; a next version only the chunks it does not carry over (those it embeds, at most).
      const scanned = version === "first" ? chunks : runs.on[version][0]!.computed;
      const flagged = runs.on.flagged.filter((_, i) => i % 2 === (version === "first" ? 0 : 1));
      console.log(
        `| ${version} version (${chunks} chunks, ~${scanned} scanned) | ${seconds(off.p50)} / ${seconds(off.p95)} | ${seconds(on.p50)} / ${seconds(on.p95)} | ${(on.p50 / off.p50).toFixed(2)} | ${((on.p50 - off.p50) / Math.max(1, scanned)).toFixed(1)} ms | ${flagged.join(", ")} |`,
      );
    }
    await rescanCost(servers.on, runs.on.first.map((r, i) => r.chunks + runs.on.next[i]!.chunks));
  } finally {
    await Promise.all([servers.off.stop(), servers.on.stop()]);
  }
}

/**
 * 6b. A workspace that changes its patterns has its stored chunks scanned again in the background
 * (docs/documents.md, *Poisoned-chunk flags*): each counted run's workspace (its first and next
 * version) switches a family off, then on again; timed from the change until /metrics counts all
 * of the workspace's chunks as scanned again.
 */
async function rescanCost(server: Awaited<ReturnType<typeof startSieveProcess>>, chunksPerWorkspace: number[]): Promise<void> {
  const rescanned = async () => Number((await (await fetch(`${server.url}/metrics`)).text()).match(/^sieve_document_chunks_scanned_total\{reason="rescan"\} (\d+)/m)?.[1] ?? 0);
  const perChunk: number[] = [];
  const totals: number[] = [];
  for (const [i, chunks] of chunksPerWorkspace.entries()) {
    const tenant = server.tenants[i + 1]!;
    for (const enabled of [false, true]) {
      const before = await rescanned();
      const start = performance.now();
      const response = await fetch(`${server.url}/v1/firewall/families/role_manipulation`, { method: "PATCH", headers: { ...tenant.serviceHeaders, "content-type": "application/json" }, body: JSON.stringify({ enabled }) });
      if (response.status !== 200) throw new Error(`family switch: ${response.status} ${await response.text()}`);
      while ((await rescanned()) < before + chunks) await Bun.sleep(TIMING_POLL_MS);
      const ms = performance.now() - start;
      totals.push(ms);
      perChunk.push(ms / chunks);
    }
  }
  const total = stats(totals);
  const each = stats(perChunk);
  console.log(`\n| chunk flags scanned again after a pattern change (${totals.length} changes, ${chunksPerWorkspace[0]} chunks each) | p50 / p95 |`);
  console.log("|---|---|");
  console.log(`| until every chunk of the workspace is scanned again | ${seconds(total.p50)} / ${seconds(total.p95)} s |`);
  console.log(`| per chunk | ${each.p50.toFixed(1)} / ${each.p95.toFixed(1)} ms |`);
}
