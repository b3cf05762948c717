/**
 * bench:docs --formats — parse + chunk speed per format (issue 53), in process, one thread:
 * p50/p95 over --runs, pages/s at the p50, and the ratio to a text-layer PDF of the same number of
 * pages measured in the same run (the baseline). Files from test/fixtures-gen; the scanned ones
 * are the committed 150-dpi scans, so their rows are OCR's cost per page.
 */
import { chunkDocument } from "../../src/documents/chunking";
import { parseDocument } from "../../src/documents/parsing";
import { sampleDocx, samplePdf } from "../../test/fixtures-gen/sample-documents";
import { sampleCsv, sampleEml, sampleEpub, sampleMsg, samplePptx, sampleXlsx } from "../../test/fixtures-gen/sample-formats";
import { scannedPage, scannedPdf } from "../../test/fixtures-gen/scanned-pages";
import { sharedEmbedder } from "../../test/support/sieve";

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
