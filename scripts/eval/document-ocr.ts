/**
 * eval:documents --ocr — OCR accuracy and cost (issue 53), against text known in advance:
 * - the committed scans of samplePdf()'s three pages (test/fixtures/scans: pdftoppm, 150 dpi, grey)
 *   as PNG, JPEG and TIFF files and as an image-only PDF (JPEG and Flate pages), compared with the
 *   text Sieve reads from the original PDF's text layer;
 * - with --ocr-pdf FILE (needs pdftoppm): pages of a real PDF rendered the same way, compared with
 *   the same PDF's text layer as Sieve reads it (--ocr-pages, default 10, from page 2).
 * Character and word accuracy are 1 − edit distance / length of the known text (whitespace runs
 * count as one space); ms per page is parse (OCR included), one page at a time, one thread.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDocument, type Block } from "../../src/documents/parsing";
import { scannedPage, scannedPageText, scannedPdf, type ScanExtension } from "../../test/fixtures-gen/scanned-pages";
import { characterAccuracy, wordAccuracy } from "../../test/support/text-accuracy";

type Measure = { label: string; pages: number; chars: number; words: number; ms: number; confidence: number };

const pageText = (blocks: Block[], page: number) => blocks.filter((block) => block.page === page).map((block) => block.text).join("\n");
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

async function measure(label: string, filename: string, bytes: Uint8Array, known: string[]): Promise<Measure> {
  const started = performance.now();
  const doc = await parseDocument(filename, bytes);
  const ms = performance.now() - started;
  const pages = known.map((_, i) => i + 1);
  return {
    label,
    pages: known.length,
    chars: mean(pages.map((page) => characterAccuracy(pageText(doc.blocks, page), known[page - 1]!))),
    words: mean(pages.map((page) => wordAccuracy(pageText(doc.blocks, page), known[page - 1]!))),
    ms: ms / known.length,
    confidence: mean(doc.blocks.map((block) => block.ocrConfidence ?? 0)),
  };
}

/** Single-page measures as one row: means per page. */
function combined(label: string, pages: Measure[]): Measure {
  const of = (key: "chars" | "words" | "ms" | "confidence") => mean(pages.map((page) => page[key]));
  return { label, pages: pages.length, chars: of("chars"), words: of("words"), ms: of("ms"), confidence: of("confidence") };
}

function print(rows: Measure[]): void {
  console.log("| input | pages | character accuracy | word accuracy | mean confidence | ms per page |");
  console.log("|---|---|---|---|---|---|");
  for (const row of rows) {
    console.log(`| ${row.label} | ${row.pages} | ${(row.chars * 100).toFixed(1)}% | ${(row.words * 100).toFixed(1)}% | ${row.confidence.toFixed(2)} | ${row.ms.toFixed(0)} |`);
  }
}

export async function evalOcr(options: { pdf?: string; pages: number }): Promise<void> {
  // The engine's start (~0.3 s) is paid once, not by the first measured page.
  await parseDocument("warm-up.png", scannedPage(1, "png").bytes);
  const rows: Measure[] = [];
  const known = [1, 2, 3].map((page) => scannedPageText(page as 1 | 2 | 3));
  for (const extension of ["png", "jpg", "tif"] as ScanExtension[]) {
    const pages: Measure[] = [];
    for (const page of [1, 2, 3] as const) pages.push(await measure("", `page.${extension}`, scannedPage(page, extension).bytes, [known[page - 1]!]));
    rows.push(combined(`samplePdf pages as ${extension.toUpperCase()}`, pages));
  }
  rows.push(await measure("samplePdf as an image-only PDF (JPEG, PNG/Flate, JPEG pages)", "scan.pdf", await scannedPdf([{ page: 1, as: "jpg" }, { page: 2, as: "png" }, { page: 3, as: "jpg" }]), known));
  if (options.pdf) rows.push(...(await realPdfPages(options.pdf, options.pages)));
  print(rows);
}

/** Pages of a real PDF rendered at 150 dpi in grey, each OCR'd as a PNG, against the PDF's own text layer. */
async function realPdfPages(file: string, count: number): Promise<Measure[]> {
  const original = new Uint8Array(readFileSync(file));
  const text = await parseDocument(file, original);
  const work = mkdtempSync(join(tmpdir(), "eval-ocr-"));
  try {
    const first = 2;
    const last = Math.min(text.pageCount, first + count - 1);
    const rendered = Bun.spawnSync(["pdftoppm", "-r", "150", "-gray", "-png", "-f", String(first), "-l", String(last), file, join(work, "page")]);
    if (rendered.exitCode !== 0) throw new Error(`pdftoppm: ${rendered.stderr.toString()}`);
    const digits = String(text.pageCount).length;
    const measures: Measure[] = [];
    for (let page = first; page <= last; page++) {
      const known = pageText(text.blocks, page);
      if (!known.trim()) continue;
      const png = new Uint8Array(readFileSync(join(work, `page-${String(page).padStart(digits, "0")}.png`)));
      measures.push(await measure("", "page.png", png, [known]));
    }
    return [combined(`${file.split("/").pop()}, pages ${first}–${last} as PNG`, measures)];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
