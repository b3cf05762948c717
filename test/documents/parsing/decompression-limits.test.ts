/**
 * The decompression limits at the parser: DOCX zip entries and PDF Flate streams are refused
 * while inflating, whatever sizes the file declares; ordinary files (and media, which the parser
 * never reads) pass.
 */
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { unzipSync, zipSync } from "fflate";
import { DecompressionLimitError, DEFAULT_DECOMPRESSION_LIMITS, parseDocument } from "../../../src/documents/parsing";
import { docxBomb } from "../../fixtures-gen/docx-bomb";
import { makeDocx } from "../../fixtures-gen/make-docx";
import { makePdf } from "../../fixtures-gen/make-pdf";
import { pdfFlateBomb } from "../../fixtures-gen/pdf-bomb";

const MiB = 1024 * 1024;

async function refusal(run: Promise<unknown>): Promise<DecompressionLimitError> {
  const error = await run.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DecompressionLimitError);
  return error as DecompressionLimitError;
}

describe("DOCX", () => {
  test("an entry inflating far beyond its compressed size is refused by ratio, from the declared sizes", async () => {
    const error = await refusal(parseDocument("bomb.docx", await docxBomb(50 * MiB)));
    expect(error.limit).toBe("compression_ratio");
    expect(error.message).toContain("--max-compression-ratio");
  });

  test("declared sizes that lie do not help: the ratio is caught while inflating", async () => {
    const error = await refusal(parseDocument("liar.docx", await docxBomb(50 * MiB, { declareSmall: true })));
    expect(error.limit).toBe("compression_ratio");
  });

  test("with the ratio allowed, the XML size limit stops the inflation (lying sizes)", async () => {
    const limits = { ...DEFAULT_DECOMPRESSION_LIMITS, maxDocxXmlBytes: 4 * MiB, maxCompressionRatio: 100_000 };
    const error = await refusal(parseDocument("liar.docx", await docxBomb(50 * MiB, { declareSmall: true }), undefined, limits));
    expect(error.limit).toBe("decompressed_size");
    expect(error.message).toContain("--max-docx-xml-bytes");
  });

  test("large media are neither inflated nor counted: the text is read", async () => {
    const files = unzipSync(await makeDocx([{ heading: "Photos", level: 1 }, { paragraph: "A report with a large embedded photograph." }]));
    files["word/media/photo.jpeg"] = new Uint8Array(randomBytes(8 * MiB));
    const docx = zipSync(files);
    const parsed = await parseDocument("photos.docx", docx, undefined, { ...DEFAULT_DECOMPRESSION_LIMITS, maxDocxXmlBytes: 1 * MiB });
    expect(parsed.blocks.map((block) => block.text)).toEqual(["Photos", "A report with a large embedded photograph."]);
  });
});

describe("PDF", () => {
  test("a Flate bomb in a page's content stream is refused before pdf.js opens the file", async () => {
    const error = await refusal(parseDocument("bomb.pdf", await pdfFlateBomb(64 * MiB)));
    expect(["compression_ratio", "decompressed_size"]).toContain(error.limit);
  });

  test("with the ratio allowed, the size limit stops it", async () => {
    const limits = { ...DEFAULT_DECOMPRESSION_LIMITS, maxDecompressedBytes: 2 * MiB, maxCompressionRatio: 100_000 };
    const error = await refusal(parseDocument("bomb.pdf", await pdfFlateBomb(64 * MiB), undefined, limits));
    expect(error.limit).toBe("decompressed_size");
    expect(error.message).toContain("--max-decompressed-bytes");
  });

  test("an ordinary PDF passes the check", async () => {
    const parsed = await parseDocument("plain.pdf", await makePdf([[{ paragraph: "An ordinary page of text." }]]));
    expect(parsed.blocks.length).toBeGreaterThan(0);
  });
});
