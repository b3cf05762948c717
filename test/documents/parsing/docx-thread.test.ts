/**
 * The DOCX reader's thread: the same blocks as reading in this thread, the parser's rejections
 * come back as the same error classes, and a parse stopped by its watchdog leaves the next one a
 * fresh worker (issue #17, defect 5).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { CorruptFileError, DecompressionLimitError, DEFAULT_DECOMPRESSION_LIMITS, DocxThread, DocxThreadError, ParseLimitError } from "../../../src/documents/parsing";
import { parseDocx } from "../../../src/documents/parsing/docx-parser";
import { docxBomb } from "../../fixtures-gen/docx-bomb";
import { largeDocx } from "../../fixtures-gen/large-docx";
import { sampleDocx } from "../../fixtures-gen/sample-documents";

const GiB = 1024 * 1024 * 1024;
const generous = { timeoutMs: 120_000, maxMemoryBytes: 8 * GiB };
const thread = new DocxThread();
afterAll(() => thread.stop());

const rejection = (run: Promise<unknown>) => run.then(() => null, (error: unknown) => error);

describe("DocxThread", () => {
  test("reads a DOCX into the same blocks as parseDocx in this thread", async () => {
    const { bytes } = await sampleDocx();
    expect(await thread.parse(bytes, DEFAULT_DECOMPRESSION_LIMITS, generous)).toEqual(await parseDocx(bytes, DEFAULT_DECOMPRESSION_LIMITS));
  });

  test("the parser's rejections keep their class, limit and flag", async () => {
    const bomb = await rejection(thread.parse(await docxBomb(50 * 1024 * 1024), DEFAULT_DECOMPRESSION_LIMITS, generous));
    expect(bomb).toBeInstanceOf(DecompressionLimitError);
    expect(bomb).toMatchObject({ limit: "compression_ratio", flag: "--max-compression-ratio" });
    const { bytes } = await sampleDocx();
    expect(await rejection(thread.parse(bytes.subarray(0, bytes.length / 2), DEFAULT_DECOMPRESSION_LIMITS, generous))).toBeInstanceOf(CorruptFileError);
  });

  test("a parse past its time limit is stopped with ParseLimitError naming the flag; the next DOCX is read by a new worker", async () => {
    const [large, { bytes: small }] = await Promise.all([largeDocx(), sampleDocx()]);
    const stopped = await rejection(thread.parse(large, DEFAULT_DECOMPRESSION_LIMITS, { ...generous, timeoutMs: 1 }));
    expect(stopped).toBeInstanceOf(ParseLimitError);
    expect(stopped).toMatchObject({ limit: "parse_time", flag: "--docx-parse-timeout-ms" });
    expect((stopped as Error).message).toContain("--docx-parse-timeout-ms");
    expect(await thread.parse(small, DEFAULT_DECOMPRESSION_LIMITS, generous)).toEqual(await parseDocx(small, DEFAULT_DECOMPRESSION_LIMITS));
  });

  test("parses queued together run one after another, each under its own watchdog", async () => {
    const [large, { bytes: small }] = await Promise.all([largeDocx(), sampleDocx()]);
    const [first, second, third] = await Promise.all([
      rejection(thread.parse(large, DEFAULT_DECOMPRESSION_LIMITS, { ...generous, timeoutMs: 1 })),
      thread.parse(small, DEFAULT_DECOMPRESSION_LIMITS, generous),
      thread.parse(large, DEFAULT_DECOMPRESSION_LIMITS, generous),
    ]);
    expect(first).toBeInstanceOf(ParseLimitError);
    expect(second.length).toBeGreaterThan(5);
    expect(third.length).toBeGreaterThan(500);
  });

  test("stop fails the parse in progress, and any later one, at once instead of waiting", async () => {
    const stopped = new DocxThread();
    const { bytes } = await sampleDocx();
    await stopped.parse(bytes, DEFAULT_DECOMPRESSION_LIMITS, generous);
    const running = rejection(stopped.parse(await largeDocx(), DEFAULT_DECOMPRESSION_LIMITS, generous));
    await Bun.sleep(20); // handed to the (already started) worker, which reads it for a few hundred ms
    stopped.stop();
    expect(await running).toBeInstanceOf(DocxThreadError);
    const error = await rejection(stopped.parse(bytes, DEFAULT_DECOMPRESSION_LIMITS, generous));
    expect(error).toBeInstanceOf(DocxThreadError);
    expect((error as Error).message).toContain("stopped");
  });

  test("a worker that cannot start fails the parse with DocxThreadError saying why, and is tried again on the next parse", async () => {
    const missing = new DocxThread(new URL("./no-such-worker.ts", import.meta.url));
    const { bytes } = await sampleDocx();
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await rejection(missing.parse(bytes, DEFAULT_DECOMPRESSION_LIMITS, generous));
      expect(error).toBeInstanceOf(DocxThreadError);
      expect((error as Error).message).toContain("no-such-worker.ts");
    }
    missing.stop();
  });

  test("stop while the worker is still starting fails the parse waiting for it", async () => {
    const starting = new DocxThread();
    const parse = rejection(starting.parse((await sampleDocx()).bytes, DEFAULT_DECOMPRESSION_LIMITS, generous));
    await Bun.sleep(1);
    starting.stop();
    expect(await parse).toBeInstanceOf(DocxThreadError);
  });
});
