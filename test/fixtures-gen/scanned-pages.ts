/**
 * The committed scans of samplePdf()'s pages (test/fixtures/scans, made by make-scans.ts) and
 * image-only PDFs built from them: JPEG pages go in as they are (DCTDecode), PNG pages are
 * decoded and stored Flate-compressed (pdf-lib's embedPng), as scanning software writes them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PDFDocument } from "pdf-lib";

const SCANS = join(import.meta.dir, "../fixtures/scans");
/** A4 in points, the size samplePdf()'s pages were rendered from. */
const A4 = { width: 595, height: 842 };

export type ScanExtension = "png" | "jpg" | "tif";

/** Page 1, 2 or 3 of samplePdf() rendered at 150 dpi in grey. */
export function scannedPage(page: 1 | 2 | 3, extension: ScanExtension): { filename: string; bytes: Uint8Array } {
  return { filename: `scan-page-${page}.${extension}`, bytes: new Uint8Array(readFileSync(join(SCANS, `page-${page}.${extension}`))) };
}

/** What each page says, as read from samplePdf()'s text layer. */
export function scannedPageText(page: 1 | 2 | 3): string {
  return (JSON.parse(readFileSync(join(SCANS, "source.json"), "utf8")) as { pages: string[] }).pages[page - 1]!;
}

/** An image-only PDF: each page one full-page image; `text` pages carry a line of real text instead. */
export async function scannedPdf(pages: ({ page: 1 | 2 | 3; as: "jpg" | "png" } | { text: string })[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  for (const spec of pages) {
    const page = pdf.addPage([A4.width, A4.height]);
    if ("text" in spec) {
      page.drawText(spec.text, { x: 50, y: A4.height - 80, size: 12 });
      continue;
    }
    const bytes = scannedPage(spec.page, spec.as).bytes;
    const image = spec.as === "jpg" ? await pdf.embedJpg(bytes) : await pdf.embedPng(bytes);
    page.drawImage(image, { x: 0, y: 0, width: A4.width, height: A4.height });
  }
  return pdf.save();
}
