/**
 * Scanned pages with a known text, for the OCR tests and eval:documents --ocr. Run once; the
 * results in test/fixtures/scans/ are committed, so neither CI nor the tests need poppler:
 *
 *   bun test/fixtures-gen/make-scans.ts      (needs pdftoppm, Debian package poppler-utils)
 *
 * The three pages of samplePdf() (headings, paragraphs, a table, page numbers) are rendered at
 * 150 dpi in grey, as a scanner would, and written as PNG, JPEG and TIFF (LZW). source.json
 * holds each page's text as Sieve reads it from the PDF's text layer: the text OCR should find.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDocument } from "../../src/documents/parsing";
import { samplePdf } from "./sample-documents.ts";

const OUT = join(import.meta.dir, "../fixtures/scans");
const DPI = "150";

const pdf = await samplePdf();
const work = mkdtempSync(join(tmpdir(), "scans-"));
try {
  const source = join(work, "source.pdf");
  writeFileSync(source, pdf.bytes);
  const render = (args: string[]) => {
    const result = Bun.spawnSync(["pdftoppm", "-r", DPI, "-gray", ...args, source, join(work, "page")]);
    if (result.exitCode !== 0) throw new Error(`pdftoppm failed: ${result.stderr.toString()}`);
  };
  render(["-png"]);
  render(["-jpeg", "-jpegopt", "quality=80"]);
  render(["-tiff", "-tiffcompression", "lzw"]);
  for (const page of [1, 2, 3]) {
    for (const extension of ["png", "jpg", "tif"]) writeFileSync(join(OUT, `page-${page}.${extension}`), readFileSync(join(work, `page-${page}.${extension}`)));
  }
  const parsed = await parseDocument(pdf.filename, pdf.bytes);
  const pages = [1, 2, 3].map((page) => parsed.blocks.filter((block) => block.page === page).map((block) => block.text).join("\n"));
  writeFileSync(join(OUT, "source.json"), `${JSON.stringify({ from: "samplePdf() in test/fixtures-gen/sample-documents.ts", dpi: Number(DPI), pages }, null, 2)}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`wrote ${OUT}`);
