/**
 * bench:docs --formats — parse + chunk speed per format (issue 53), in process, one thread:
 * p50/p95 over --runs, pages/s at the p50, and the ratio to a text-layer PDF of the same number of
 * pages measured in the same run (the baseline). Files from test/fixtures-gen; the scanned ones
 * are the committed 150-dpi scans, so their rows are OCR's cost per page.
 *
 * Then /healthz during OCR: Sieve in a process of its own (as users run it), GET /healthz every
 * 20 ms from this process while idle, then while a 10-page scan uploaded to it (the real
 * test/fixtures/converted/scan-10-pages.pdf) is OCR'd, parsed, chunked and embedded, until its
 * variant completes; p50/p95/max of each and their ratio, in the same run.
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { chunkDocument } from "../../src/documents/chunking";
import { parseDocument } from "../../src/documents/parsing";
import { sampleDocx, samplePdf } from "../../test/fixtures-gen/sample-documents";
import { sampleCsv, sampleEml, sampleEpub, sampleMsg, samplePptx, sampleXlsx } from "../../test/fixtures-gen/sample-formats";
import { scannedPage, scannedPdf } from "../../test/fixtures-gen/scanned-pages";
import { sharedEmbedder } from "../../test/support/sieve";
import { DocumentsClient } from "../../test/documents/api-client";
import { startSieveProcess } from "./processes";

type File = { format: string; filename: string; bytes: Uint8Array };

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function benchFormats(runs: number): Promise<void> {
  const embedder = await sharedEmbedder();
  const countTokens = (text: string) => embedder.countTokens(text);
  const files: File[] = [
    { format: "pdf (baseline)", ...(await samplePdf()) },
    { format: "docx", ...(await sampleDocx()) },
    { format: "xlsx", ...sampleXlsx(500) },
    { format: "csv", ...sampleCsv(500) },
    { format: "pptx", ...samplePptx() },
    { format: "epub", ...sampleEpub() },
    { format: "eml", ...sampleEml() },
    { format: "msg", ...sampleMsg() },
    { format: "png (OCR)", ...scannedPage(2, "png") },
    { format: "jpeg (OCR)", ...scannedPage(2, "jpg") },
    { format: "tiff (OCR)", ...scannedPage(2, "tif") },
    { format: "scanned pdf (OCR)", filename: "scan.pdf", bytes: await scannedPdf([{ page: 1, as: "jpg" }, { page: 2, as: "png" }, { page: 3, as: "jpg" }]) },
  ];
  // The OCR engine starts once per thread (as in the server's parser thread): not part of a page's cost.
  await parseDocument("warm-up.png", scannedPage(1, "png").bytes);
  const rows: { format: string; size: string; pages: number; chunks: number; p50: number; p95: number }[] = [];
  for (const file of files) {
    const times: number[] = [];
    let pages = 1;
    let chunks = 0;
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      const parsed = await parseDocument(file.filename, file.bytes);
      chunks = (await chunkDocument(parsed, { strategy: "recursive", chunkSize: 512, chunkOverlap: 50, countTokens })).length;
      times.push(performance.now() - started);
      pages = parsed.pageCount;
    }
    times.sort((a, b) => a - b);
    rows.push({ format: file.format, size: `${(file.bytes.length / 1024).toFixed(0)} KB`, pages, chunks, p50: percentile(times, 50), p95: percentile(times, 95) });
  }
  const baseline = rows[0]!;
  const perPage = (row: (typeof rows)[number]) => row.p50 / row.pages;
  console.log(`\n| format | file | pages | chunks | p50 ms | p95 ms | pages/s (p50) | ms per page vs PDF baseline |`);
  console.log("|---|---|---|---|---|---|---|---|");
  for (const row of rows) {
    console.log(`| ${row.format} | ${row.size} | ${row.pages} | ${row.chunks} | ${row.p50.toFixed(1)} | ${row.p95.toFixed(1)} | ${(row.pages / (row.p50 / 1000)).toFixed(1)} | ${(perPage(row) / perPage(baseline)).toFixed(1)}× |`);
  }
}

const PROBE_INTERVAL_MS = 20;
/** Idle probes: as long as this, before the upload. */
const IDLE_MS = 5_000;

/** GET /healthz every PROBE_INTERVAL_MS until `busy` settles (or for IDLE_MS without it): each probe's latency. */
async function probeHealth(url: string, busy?: Promise<unknown>): Promise<number[]> {
  const probes: number[] = [];
  let done = false;
  void (busy ?? Bun.sleep(IDLE_MS)).finally(() => (done = true));
  while (!done) {
    const started = performance.now();
    const response = await fetch(`${url}/healthz`);
    await response.arrayBuffer();
    probes.push(performance.now() - started);
    await Bun.sleep(PROBE_INTERVAL_MS);
  }
  return probes.sort((a, b) => a - b);
}

export async function benchHealthDuringOcr(): Promise<void> {
  const scan = new Uint8Array(readFileSync(join(import.meta.dir, "../../test/fixtures/converted/scan-10-pages.pdf")));
  const sieve = await startSieveProcess({ tenants: ["ocr-health"] });
  try {
    const api = new DocumentsClient(sieve.url, sieve.tenants[0]!);
    // A first scan starts the server's parser thread and OCR engine, as a running server has them.
    await api.uploadCompleted("warm-up.pdf", new Uint8Array(readFileSync(join(import.meta.dir, "../../test/fixtures/converted/scan-gray.pdf"))));
    const loadBefore = loadavg()[0]!;
    const idle = await probeHealth(sieve.url);
    const started = performance.now();
    const job = api.uploadCompleted("scan-10-pages.pdf", scan);
    const during = await probeHealth(sieve.url, job);
    const { variant_id } = await job;
    const jobMs = performance.now() - started;
    const variant = await api.getJson(`/api/documents/variants/${variant_id}`);
    const row = (label: string, probes: number[]) => `| ${label} | ${probes.length} | ${percentile(probes, 50).toFixed(1)} | ${percentile(probes, 95).toFixed(1)} | ${probes.at(-1)!.toFixed(0)} |`;
    console.log(`\n| GET /healthz every ${PROBE_INTERVAL_MS} ms | probes | p50 ms | p95 ms | max ms |`);
    console.log("|---|---|---|---|---|");
    console.log(row(`idle (${IDLE_MS / 1000} s)`, idle));
    console.log(row(`during the upload of scan-10-pages.pdf until its variant completed (${(jobMs / 1000).toFixed(1)} s, ${variant.chunks_count} chunks)`, during));
    console.log(`\nRatio during / idle: p50 ${(percentile(during, 50) / percentile(idle, 50)).toFixed(2)}×, p95 ${(percentile(during, 95) / percentile(idle, 95)).toFixed(2)}×. OCR job: ${((jobMs / 1000) / 10).toFixed(1)} s a page (OCR, chunking, embedding). 1-min load average ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after.`);
  } finally {
    await sieve.stop();
  }
}
