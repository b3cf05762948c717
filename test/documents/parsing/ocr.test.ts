/**
 * OCR (issue 53): scanned pages as PNG, JPEG and TIFF files and as image-only PDFs (JPEG and Flate
 * images) are read by Tesseract into the same blocks a text layer gives — headings, paragraphs,
 * the table — with their page's confidence; in the parser's thread, under its watchdog.
 * The scans are samplePdf()'s pages rendered by pdftoppm (test/fixtures-gen/make-scans.ts).
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chunkDocument } from "../../../src/documents/chunking";
import { CorruptFileError, DEFAULT_DECOMPRESSION_LIMITS, detectFormat, EmptyFileError, parseDocument, ParseLimitError, ParserThread, UnsupportedFormatError } from "../../../src/documents/parsing";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { missingOcrLanguages, ocrFiles, recognizeImage } from "../../../src/documents/parsing/ocr";
import { readThreadedFormat } from "../../../src/documents/parsing/parse-document";
import { scannedPage, scannedPageText, scannedPdf } from "../../fixtures-gen/scanned-pages";
import { characterAccuracy } from "../../support/text-accuracy";

// A page takes Tesseract 1–7 s on a busy 2-core machine.
setDefaultTimeout(180_000);

const pageText = (blocks: { text: string; page: number | null }[], page: number) => blocks.filter((block) => block.page === page).map((block) => block.text).join("\n");
const rejection = (run: Promise<unknown>) => run.then(() => null, (error: unknown) => error);

describe("image files", () => {
  test("PNG, JPEG and TIFF are detected by their bytes, whatever their name", () => {
    expect(detectFormat("a.bin", scannedPage(1, "png").bytes)).toEqual({ format: "image", mimeType: "image/png", reader: "image" });
    expect(detectFormat("a.png", scannedPage(1, "jpg").bytes)).toEqual({ format: "image", mimeType: "image/jpeg", reader: "image" });
    expect(detectFormat("a", scannedPage(1, "tif").bytes)).toEqual({ format: "image", mimeType: "image/tiff", reader: "image" });
    expect(() => detectFormat("a.gif", new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61]))).toThrow(UnsupportedFormatError);
    expect(() => detectFormat("a.gif", new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61]))).toThrow(/GIF image.*PNG\/JPEG\/TIFF images \(OCR\)/);
  });

  test("a scanned page with a table: headings, paragraphs and the table as blocks, with the page's confidence, text as the text layer's", async () => {
    const doc = await parseDocument("scan.png", scannedPage(2, "png").bytes);
    expect(doc).toMatchObject({ format: "image", mimeType: "image/png", pageCount: 1, paginated: true });
    expect(doc.blocks.filter((block) => block.kind === "heading").map((block) => block.text)).toEqual(["2 Methods", "2.1 Scope"]);
    const table = doc.blocks.find((block) => block.kind === "table")!;
    expect(table.table).toMatchObject({ rows: 4, columns: 3, headers: ["Sample", "Mass (g)", "Volume (ml)"] });
    expect(doc.blocks.find((block) => block.kind === "caption")?.text).toBe("Table 1: Reference samples");
    for (const block of doc.blocks) {
      expect(block.page).toBe(1);
      expect(block.ocrConfidence).toBeGreaterThan(0.8);
      expect(block.ocrConfidence).toBeLessThanOrEqual(1);
    }
    expect(characterAccuracy(pageText(doc.blocks, 1), scannedPageText(2))).toBeGreaterThan(0.97);
  });

  test("JPEG and TIFF (LZW) pages read as well", async () => {
    for (const [page, extension] of [[1, "jpg"], [3, "tif"]] as const) {
      const doc = await parseDocument(`scan.${extension}`, scannedPage(page, extension).bytes);
      expect(characterAccuracy(pageText(doc.blocks, 1), scannedPageText(page))).toBeGreaterThan(0.97);
    }
  });

  test("chunks of a scan say so: metadata.ocr, ocr_confidence, page 1", async () => {
    const doc = await parseDocument("scan.jpg", scannedPage(1, "jpg").bytes);
    const chunks = await chunkDocument(doc, { strategy: "recursive", chunkSize: 40, chunkOverlap: 0, countTokens: (text) => text.split(/\s+/).length });
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) {
      expect(chunk.metadata).toMatchObject({ format: "image", ocr: true });
      expect(chunk.metadata.ocr_confidence).toBeGreaterThan(0.8);
      expect(chunk.page_number).toBe(1);
    }
    expect(chunks.map((chunk) => chunk.section_hierarchy.at(-1))).toContain("1.1 Background");
  });

  test("an image that cannot be decoded is a corrupt file; a blank one has no text", async () => {
    const png = scannedPage(1, "png").bytes;
    expect(await rejection(parseDocument("broken.png", png.subarray(0, 200)))).toBeInstanceOf(CorruptFileError);
    const blank = await scannedPdf([{ text: " " }]);
    expect(await rejection(parseDocument("blank.pdf", blank))).toBeInstanceOf(EmptyFileError);
  });
});

describe("scanned PDFs", () => {
  test("pages without a text layer are read from their image (JPEG as DCT, PNG as Flate); a page with text is not OCR'd", async () => {
    const bytes = await scannedPdf([{ page: 1, as: "jpg" }, { page: 2, as: "png" }, { text: "A typed cover note on page three." }]);
    const doc = await parseDocument("scan.pdf", bytes);
    expect(doc).toMatchObject({ format: "pdf", pageCount: 3 });
    expect(characterAccuracy(pageText(doc.blocks, 1), scannedPageText(1))).toBeGreaterThan(0.97);
    expect(characterAccuracy(pageText(doc.blocks, 2), scannedPageText(2))).toBeGreaterThan(0.97);
    expect(doc.blocks.filter((block) => block.page === 2 && block.kind === "table")).toHaveLength(1);
    for (const block of doc.blocks) expect(block.ocrConfidence !== undefined).toBe(block.page !== 3);
    expect(pageText(doc.blocks, 3)).toBe("A typed cover note on page three.");
  });

  describe("in the parser's thread", () => {
    const thread = new ParserThread();
    afterAll(() => thread.stop());

    test("the same blocks as in this thread; past its time limit the OCR is stopped like any parse", async () => {
      const bytes = await scannedPdf([{ page: 3, as: "jpg" }]);
      const generous = { timeoutMs: 120_000, maxMemoryBytes: 8 * 1024 * 1024 * 1024, ocrPageMs: 0 };
      const stopped = await rejection(thread.parse("pdf", bytes, DEFAULT_DECOMPRESSION_LIMITS, { ...generous, timeoutMs: 50 }));
      expect(stopped).toBeInstanceOf(ParseLimitError);
      expect(stopped).toMatchObject({ flag: "--parse-timeout-ms" });
      const read = await thread.parse("pdf", bytes, DEFAULT_DECOMPRESSION_LIMITS, generous);
      expect(read.blocks.length).toBeGreaterThan(3);
      expect(read).toEqual(await readThreadedFormat("pdf", bytes, DEFAULT_DECOMPRESSION_LIMITS));
    });

    test("a real 10-page scan gets its time per OCR'd page: stopped within a bare 2 s, read in full with the per-page allowance", async () => {
      // pdftoppm scans of LibreOffice PDFs (scripts/eval/make-format-fixtures.ts), each page's text known.
      const converted = join(import.meta.dir, "../../fixtures/converted");
      const bytes = new Uint8Array(readFileSync(join(converted, "scan-10-pages.pdf")));
      const known = (JSON.parse(readFileSync(join(converted, "manifest.json"), "utf8")).fixtures as { file: string; pageTexts?: string[] }[]).find((f) => f.file === "scan-10-pages.pdf")!.pageTexts!;
      const bare = { timeoutMs: 2000, maxMemoryBytes: 8 * 1024 * 1024 * 1024, ocrPageMs: 0 };
      const stopped = await rejection(thread.parse("pdf", bytes, DEFAULT_DECOMPRESSION_LIMITS, bare));
      expect(stopped).toMatchObject({ limit: "parse_time", flag: "--parse-timeout-ms" });

      // The same 2 s (opening the PDF and decoding its first image fit in them), plus each page's allowance as the page starts: ten pages of OCR are not cut, whatever the load.
      const read = await thread.parse("pdf", bytes, DEFAULT_DECOMPRESSION_LIMITS, { ...bare, ocrPageMs: 120_000 });
      expect(read.pageCount).toBe(10);
      const accuracies = known.map((text, i) => characterAccuracy(pageText(read.blocks, i + 1), text));
      // Every page is read (black-and-white 150 dpi pages: some read far worse than others, see eval:documents --formats).
      for (const accuracy of accuracies) expect(accuracy).toBeGreaterThan(0.3);
      expect(accuracies.reduce((sum, a) => sum + a, 0) / accuracies.length).toBeGreaterThan(0.7);
      expect(read.blocks.every((block) => block.ocrConfidence !== undefined)).toBe(true);
    }, 400_000); // ten pages at up to 7 s each, twice over on a loaded host (124 s measured at load average 15)
  });
});

describe("OCR languages", () => {
  test("English is built in; another language is found in --ocr-data-dir, and one found nowhere is named", async () => {
    expect(missingOcrLanguages(ocrFiles())).toEqual([]);
    const dir = mkdtempSync(join(tmpdir(), "ocr-data-"));
    try {
      expect(missingOcrLanguages(ocrFiles({ ocrLanguages: "eng+deu+fra", ocrDataDir: dir }))).toEqual(["deu", "fra"]);
      // A stand-in "deu": the English model under that name, enough to show the folder is read and the language loaded.
      copyFileSync(join(ocrFiles().languageDirs[0]!, "eng.traineddata.gz"), join(dir, "deu.traineddata.gz"));
      const files = ocrFiles({ ocrLanguages: "deu", ocrDataDir: dir });
      expect(missingOcrLanguages(files)).toEqual([]);
      const page = await recognizeImage(scannedPage(3, "png").bytes, files);
      expect(page.words.map((word) => word.text).join(" ")).toContain("Conclusion");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
