/**
 * Files of every format written by real tools, for eval:documents --formats (issue 53). Run once;
 * the results in test/fixtures/converted/ are committed, so neither CI nor the eval needs these
 * tools:
 *
 *   bun scripts/eval/make-format-fixtures.ts     (needs LibreOffice: soffice; pdftoppm: poppler-utils)
 *
 * - LibreOffice converts the project's own documents: the real Node.js DOCX
 *   (test/fixtures/real) and the sample DOCX (test/fixtures-gen) to PDF and EPUB, their PDFs to a
 *   PPTX (Impress's PDF import: a slide per page, text boxes, no title placeholders), and
 *   re-saves the generated workbook, CSV and slide deck as XLSX and PPTX (LibreOffice's own OOXML
 *   writer: its cell types, shared strings, cached formula values, title placeholders and notes).
 * - Scans: the pages of three of those text PDFs rendered by pdftoppm at 150 dpi and wrapped back
 *   into image-only PDFs: `scan-gray.pdf` (grey, JPEG: what a copier's "scan to PDF" makes) and
 *   `scan-10-pages.pdf` (black-and-white pixels, as document scanners default to, stored by pdf-lib as
 *   8-bit Flate images: Sieve does not decode 1-bit ones), so the text is known.
 *
 * manifest.json holds what each file should yield (sections, tables as rows × columns with the
 * header row counted, the text of every scanned page), taken from the source documents: heading
 * styles and tables of the DOCX as Sieve reads them (explicit in the file, so not the parser's
 * guess), the text layer of the PDFs that were scanned, and the specs the generated files were
 * built from. The tool versions are recorded there too.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDocument } from "pdf-lib";
import { parseDocument, type ParsedDocument } from "../../src/documents/parsing";
import { makePptx } from "../../test/fixtures-gen/make-ooxml";
import { sampleDocx } from "../../test/fixtures-gen/sample-documents";
import { sampleCsv, sampleXlsx } from "../../test/fixtures-gen/sample-formats";

const OUT = join(import.meta.dir, "../../test/fixtures/converted");
const REAL = join(import.meta.dir, "../../test/fixtures/real");
const DPI = 150;

export type Table = { rows: number; columns: number };
export type FixtureTruth = { file: string; format: string; madeBy: string; sections: string[]; tables: Table[]; pageTexts?: string[] };

const work = mkdtempSync(join(tmpdir(), "format-fixtures-"));
const profile = `file://${join(work, "profile")}`;

function run(command: string[]): string {
  const result = Bun.spawnSync(command, { cwd: work, env: { ...process.env, HOME: work } });
  if (result.exitCode !== 0) throw new Error(`${command.join(" ")}: ${result.stderr.toString()}`);
  return result.stdout.toString();
}

/** soffice --convert-to; returns the bytes of the file it wrote (into a folder of its own, so a same-format re-save does not overwrite its input). */
function convert(input: string, to: string, extension: string, infilter?: string): Uint8Array {
  const outDir = mkdtempSync(join(work, "out-"));
  run(["soffice", `-env:UserInstallation=${profile}`, "--headless", ...(infilter ? [`--infilter=${infilter}`] : []), "--convert-to", to, "--outdir", outDir, input]);
  const name = input.split("/").pop()!.replace(/\.[^.]+$/, `.${extension}`);
  return new Uint8Array(readFileSync(join(outDir, name)));
}

function write(name: string, bytes: Uint8Array): string {
  const path = join(work, name);
  writeFileSync(path, bytes);
  return path;
}

/** Sections and tables of a DOCX as its heading styles and table elements say. */
function docxTruth(doc: ParsedDocument): { sections: string[]; tables: Table[] } {
  return {
    sections: doc.blocks.filter((block) => block.kind === "heading").map((block) => block.text),
    tables: doc.blocks.flatMap((block) => (block.table ? [{ rows: block.table.body.length + (block.table.headers.length > 0 ? 1 : 0), columns: block.table.columns }] : [])),
  };
}

const pageTexts = (doc: ParsedDocument) => Array.from({ length: doc.pageCount }, (_, i) => doc.blocks.filter((block) => block.page === i + 1).map((block) => block.text).join("\n"));

/** Pages of text PDFs rendered by pdftoppm and wrapped into one image-only PDF, page size kept. */
async function scannedPdf(sources: { pdf: string; pages: number }[], mode: "gray-jpeg" | "mono-png"): Promise<Uint8Array> {
  const out = await PDFDocument.create();
  for (const [n, { pdf, pages }] of sources.entries()) {
    const prefix = join(work, `scan-${mode}-${n}`);
    const format = mode === "gray-jpeg" ? ["-gray", "-jpeg", "-jpegopt", "quality=60"] : ["-mono", "-png"];
    run(["pdftoppm", "-r", String(DPI), ...format, "-f", "1", "-l", String(pages), pdf, prefix]);
    const source = await PDFDocument.load(readFileSync(pdf));
    const digits = String(source.getPageCount()).length;
    for (let page = 1; page <= pages; page++) {
      const { width, height } = source.getPage(page - 1).getSize();
      const image = readFileSync(`${prefix}-${String(page).padStart(digits, "0")}.${mode === "gray-jpeg" ? "jpg" : "png"}`);
      const embedded = mode === "gray-jpeg" ? await out.embedJpg(image) : await out.embedPng(image);
      out.addPage([width, height]).drawImage(embedded, { x: 0, y: 0, width, height });
    }
  }
  return out.save();
}

/** A ten-slide deck: titles, bullets, speaker notes, a table on every third slide. */
const DECK = Array.from({ length: 10 }, (_, i) => ({
  title: `Topic ${i + 1}: quarterly review of area ${i + 1}`,
  bullets: [`Revenue in area ${i + 1} grew by ${i + 3} percent over the quarter.`, `Hiring for area ${i + 1} continues in the next quarter.`],
  ...(i % 3 === 0 ? { table: [["Metric", "Q1", "Q2"], ["Revenue", `${i}`, `${i + 1}`], ["Costs", "4", "5"], ["Staff", "7", "8"]] } : {}),
  notes: `Speaker reminder for topic ${i + 1}: stress the hiring plan.`,
}));

try {
  mkdirSync(OUT, { recursive: true });
  const libreOffice = run(["soffice", `-env:UserInstallation=${profile}`, "--version"]).trim();
  const poppler = Bun.spawnSync(["pdftoppm", "-v"]).stderr.toString().split("\n")[0]!.trim();
  const fixtures: FixtureTruth[] = [];
  const keep = (truth: Omit<FixtureTruth, "format">, bytes: Uint8Array, format: string) => {
    writeFileSync(join(OUT, truth.file), bytes);
    fixtures.push({ ...truth, format });
  };

  const sources = [
    { name: "querystring", docx: new Uint8Array(readFileSync(join(REAL, "nodejs-querystring.docx"))), from: "test/fixtures/real/nodejs-querystring.docx" },
    { name: "sample", docx: (await sampleDocx()).bytes, from: "sampleDocx() of test/fixtures-gen" },
  ];
  const pdfs: { pdf: string; pages: number; text: string[] }[] = [];
  for (const source of sources) {
    const docxPath = write(`${source.name}.docx`, source.docx);
    const truth = docxTruth(await parseDocument(`${source.name}.docx`, source.docx));
    const pdf = convert(docxPath, "pdf", "pdf");
    keep({ file: `${source.name}.pdf`, madeBy: `LibreOffice Writer: --convert-to pdf ${source.from}`, ...truth }, pdf, "pdf");
    keep({ file: `${source.name}.epub`, madeBy: `LibreOffice Writer: --convert-to epub ${source.from}`, ...truth }, convert(docxPath, "epub", "epub"), "epub");
    const pdfPath = write(`${source.name}.pdf`, pdf);
    // Impress's PDF import keeps a page's lines as text boxes: no title placeholders, no tables; the truth is the pages.
    keep({ file: `${source.name}-from-pdf.pptx`, madeBy: `LibreOffice Impress: --infilter=impress_pdf_import --convert-to pptx ${source.name}.pdf`, sections: [], tables: [] }, convert(pdfPath, "pptx", "pptx", "impress_pdf_import"), "pptx");
    const parsedPdf = await parseDocument(`${source.name}.pdf`, pdf);
    pdfs.push({ pdf: pdfPath, pages: parsedPdf.pageCount, text: pageTexts(parsedPdf) });
  }

  const deck = write("deck.pptx", makePptx(DECK));
  keep(
    { file: "deck.pptx", madeBy: "LibreOffice Impress: --convert-to pptx of a deck written by test/fixtures-gen/make-ooxml.ts (titles, bullets, notes, tables)", sections: DECK.map((slide) => slide.title), tables: DECK.filter((slide) => slide.table).map(() => ({ rows: 4, columns: 3 })) },
    convert(deck, "pptx", "pptx"),
    "pptx",
  );
  const workbook = write("sales.xlsx", sampleXlsx(200).bytes);
  keep(
    { file: "sales.xlsx", madeBy: "LibreOffice Calc: --convert-to xlsx of sampleXlsx(200) (formulas, a merged title)", sections: ["Sales", "Prices"], tables: [{ rows: 201, columns: 5 }, { rows: 3, columns: 3 }] },
    convert(workbook, "xlsx", "xlsx"),
    "xlsx",
  );
  const csv = write("cities.csv", sampleCsv(200).bytes);
  // CSV import options: ';' separated (59), '"' quoted (34), UTF-8 (76), from line 1.
  keep({ file: "cities.xlsx", madeBy: "LibreOffice Calc: --infilter=CSV:59,34,76,1 --convert-to xlsx of sampleCsv(200)", sections: [], tables: [{ rows: 201, columns: 4 }] }, convert(csv, "xlsx", "xlsx", "CSV:59,34,76,1"), "xlsx");

  const [querystring, sample] = pdfs as [(typeof pdfs)[0], (typeof pdfs)[0]];
  const basicsHtml = write("libffi-the-basics.html", new Uint8Array(readFileSync(join(REAL, "libffi-the-basics.html"))));
  const basicsPdf = write("libffi-the-basics.pdf", convert(basicsHtml, "pdf", "pdf", "HTML (StarWriter)"));
  const basics = await parseDocument("libffi-the-basics.pdf", new Uint8Array(readFileSync(basicsPdf)));
  const tenPages = [
    { pdf: querystring.pdf, pages: querystring.pages, text: querystring.text },
    { pdf: basicsPdf, pages: basics.pageCount, text: pageTexts(basics) },
    { pdf: sample.pdf, pages: sample.pages, text: sample.text },
  ];
  const scanTruth = (parts: typeof tenPages, limit: number) => parts.flatMap((part) => part.text.slice(0, part.pages)).slice(0, limit);
  if (scanTruth(tenPages, 10).length < 10) throw new Error(`only ${scanTruth(tenPages, 10).length} pages to scan`);
  keep(
    { file: "scan-10-pages.pdf", madeBy: `${poppler}: pdftoppm -r ${DPI} -mono -png of querystring.pdf, libffi-the-basics.pdf (LibreOffice from test/fixtures/real) and sample.pdf, one image per page (pdf-lib, which stores the black-and-white pixels as 8-bit Flate)`, sections: [], tables: [], pageTexts: scanTruth(tenPages, 10) },
    await scannedPdf(trimmed(tenPages, 10), "mono-png"),
    "scan",
  );
  keep(
    { file: "scan-gray.pdf", madeBy: `${poppler}: pdftoppm -r ${DPI} -gray -jpeg (quality 60) of the first 2 pages of querystring.pdf, one image per page (pdf-lib)`, sections: [], tables: [], pageTexts: querystring.text.slice(0, 2) },
    await scannedPdf([{ pdf: querystring.pdf, pages: 2 }], "gray-jpeg"),
    "scan",
  );
  writeFileSync(join(OUT, "manifest.json"), `${JSON.stringify({ tools: { libreOffice, poppler }, dpi: DPI, fixtures }, null, 2)}\n`);
  console.log(`wrote ${fixtures.length} files and manifest.json to ${OUT}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** The first `limit` pages across the parts. */
function trimmed(parts: { pdf: string; pages: number }[], limit: number): { pdf: string; pages: number }[] {
  const out: { pdf: string; pages: number }[] = [];
  let left = limit;
  for (const part of parts) {
    if (left <= 0) break;
    out.push({ pdf: part.pdf, pages: Math.min(part.pages, left) });
    left -= Math.min(part.pages, left);
  }
  return out;
}
