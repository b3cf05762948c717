/**
 * The document parser's thread (PDF and DOCX): the same blocks as reading in this thread, the
 * parsers' rejections come back as the same error classes, and a parse stopped by its watchdog
 * leaves the next one a fresh worker (issue #17, defect 5).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { CorruptFileError, DecompressionLimitError, DEFAULT_DECOMPRESSION_LIMITS, ParseLimitError, ParserThread, ParserThreadError } from "../../../src/documents/parsing";
import { readThreadedFormat } from "../../../src/documents/parsing/parse-document";
import { docxBomb } from "../../fixtures-gen/docx-bomb";
import { largeDocx } from "../../fixtures-gen/large-docx";
import { pdfFlateBomb } from "../../fixtures-gen/pdf-bomb";
import { sampleDocx, samplePdf } from "../../fixtures-gen/sample-documents";

const GiB = 1024 * 1024 * 1024;
const generous = { timeoutMs: 120_000, maxMemoryBytes: 8 * GiB, ocrPageMs: 0 };
const thread = new ParserThread();
const inThisThread = (format: "pdf" | "docx", bytes: Uint8Array) => readThreadedFormat(format, bytes, DEFAULT_DECOMPRESSION_LIMITS);
afterAll(() => thread.stop());

const rejection = (run: Promise<unknown>) => run.then(() => null, (error: unknown) => error);

describe("ParserThread", () => {
  test("reads a DOCX into the same blocks as in this thread", async () => {
    const { bytes } = await sampleDocx();
    expect(await thread.parse("docx", bytes, DEFAULT_DECOMPRESSION_LIMITS, generous)).toEqual(await inThisThread("docx", bytes));
  });

  test("reads a PDF into the same blocks and page count as in this thread", async () => {
    const { bytes } = await samplePdf();
    const read = await thread.parse("pdf", bytes, DEFAULT_DECOMPRESSION_LIMITS, generous);
    expect(read.pageCount).toBeGreaterThan(1);
    expect(read).toEqual(await inThisThread("pdf", bytes));
  });

  test("the parsers' rejections keep their class, limit and flag", async () => {
    const bomb = await rejection(thread.parse("docx", await docxBomb(50 * 1024 * 1024), DEFAULT_DECOMPRESSION_LIMITS, generous));
    expect(bomb).toBeInstanceOf(DecompressionLimitError);
    expect(bomb).toMatchObject({ limit: "compression_ratio", flag: "--max-compression-ratio" });
    const { bytes } = await sampleDocx();
    expect(await rejection(thread.parse("docx", bytes.subarray(0, bytes.length / 2), DEFAULT_DECOMPRESSION_LIMITS, generous))).toBeInstanceOf(CorruptFileError);
    const pdfBomb = await rejection(thread.parse("pdf", await pdfFlateBomb(200 * 1024 * 1024), DEFAULT_DECOMPRESSION_LIMITS, generous));
    expect(pdfBomb).toBeInstanceOf(DecompressionLimitError);
    const pdf = (await samplePdf()).bytes;
    expect(await rejection(thread.parse("pdf", pdf.subarray(0, 200), DEFAULT_DECOMPRESSION_LIMITS, generous))).toBeInstanceOf(CorruptFileError);
  });

  test("a parse past its time limit is stopped with ParseLimitError naming the flag; the next DOCX is read by a new worker", async () => {
    const [large, { bytes: small }] = await Promise.all([largeDocx(), sampleDocx()]);
    const stopped = await rejection(thread.parse("docx", large, DEFAULT_DECOMPRESSION_LIMITS, { ...generous, timeoutMs: 1 }));
    expect(stopped).toBeInstanceOf(ParseLimitError);
    expect(stopped).toMatchObject({ limit: "parse_time", flag: "--parse-timeout-ms" });
    expect((stopped as Error).message).toContain("--parse-timeout-ms");
    expect(await thread.parse("docx", small, DEFAULT_DECOMPRESSION_LIMITS, generous)).toEqual(await inThisThread("docx", small));
  });

  test("parses queued together run one after another, each under its own watchdog", async () => {
    const [large, { bytes: small }] = await Promise.all([largeDocx(), sampleDocx()]);
    const [first, second, third] = await Promise.all([
      rejection(thread.parse("docx", large, DEFAULT_DECOMPRESSION_LIMITS, { ...generous, timeoutMs: 1 })),
      thread.parse("docx", small, DEFAULT_DECOMPRESSION_LIMITS, generous),
      thread.parse("docx", large, DEFAULT_DECOMPRESSION_LIMITS, generous),
    ]);
    expect(first).toBeInstanceOf(ParseLimitError);
    expect(second.blocks.length).toBeGreaterThan(5);
    expect(third.blocks.length).toBeGreaterThan(500);
  });

  test("stop fails the parse in progress, and any later one, at once instead of waiting", async () => {
    const stopped = new ParserThread();
    const { bytes } = await sampleDocx();
    await stopped.parse("docx", bytes, DEFAULT_DECOMPRESSION_LIMITS, generous);
    const running = rejection(stopped.parse("docx", await largeDocx(), DEFAULT_DECOMPRESSION_LIMITS, generous));
    await Bun.sleep(20); // handed to the (already started) worker, which reads it for a few hundred ms
    stopped.stop();
    expect(await running).toBeInstanceOf(ParserThreadError);
    const error = await rejection(stopped.parse("docx", bytes, DEFAULT_DECOMPRESSION_LIMITS, generous));
    expect(error).toBeInstanceOf(ParserThreadError);
    expect((error as Error).message).toContain("stopped");
  });

  test("a worker that cannot start fails the parse with ParserThreadError saying why, and is tried again on the next parse", async () => {
    const missing = new ParserThread(new URL("./no-such-worker.ts", import.meta.url));
    const { bytes } = await sampleDocx();
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await rejection(missing.parse("docx", bytes, DEFAULT_DECOMPRESSION_LIMITS, generous));
      expect(error).toBeInstanceOf(ParserThreadError);
      expect((error as Error).message).toContain("no-such-worker.ts");
    }
    missing.stop();
  });

  test("stop while the worker is still starting fails the parse waiting for it", async () => {
    const starting = new ParserThread();
    const parse = rejection(starting.parse("docx", (await sampleDocx()).bytes, DEFAULT_DECOMPRESSION_LIMITS, generous));
    await Bun.sleep(1);
    starting.stop();
    expect(await parse).toBeInstanceOf(ParserThreadError);
  });
});
