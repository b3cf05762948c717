import { describe, expect, test } from "bun:test";
import { CorruptFileError, detectFormat, DocumentInputError, EmptyFileError, parseDocument, UnsupportedFormatError } from "../../../src/documents/parsing/index.ts";
import { sampleDocx, samplePdf } from "../../fixtures-gen/sample-documents.ts";

import { makeEml, makeMsg } from "../../fixtures-gen/make-email";
import { makeEpub, makePptx, makeXlsx } from "../../fixtures-gen/make-ooxml";
import { SAMPLE_EMAIL } from "../../fixtures-gen/sample-formats";

const text = (value: string) => new TextEncoder().encode(value);

describe("detectFormat", () => {
  test("recognises PDF and DOCX by their bytes, whatever the name says", async () => {
    expect(detectFormat("upload.bin", (await samplePdf()).bytes)).toEqual({ format: "pdf", mimeType: "application/pdf", reader: "pdf" });
    expect(detectFormat("upload", (await sampleDocx()).bytes).format).toBe("docx");
  });

  test("tells the zip formats apart by their parts, and an Outlook message from other compound files", () => {
    expect(detectFormat("upload", makeXlsx([{ name: "S", rows: [["a"]] }]))).toEqual({ format: "xlsx", mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", reader: "xlsx" });
    expect(detectFormat("upload", makePptx([{ title: "T" }])).format).toBe("pptx");
    expect(detectFormat("upload", makeEpub("B", [{ title: "C", body: "<p>x</p>" }])).format).toBe("epub");
    expect(detectFormat("upload", makeMsg(SAMPLE_EMAIL))).toEqual({ format: "email", mimeType: "application/vnd.ms-outlook", reader: "msg" });
    expect(detectFormat("mail.eml", text(makeEml(SAMPLE_EMAIL)))).toEqual({ format: "email", mimeType: "message/rfc822", reader: "eml" });
    expect(detectFormat("a.tsv", text("a\tb")).mimeType).toBe("text/tab-separated-values");
    expect(() => detectFormat("legacy.doc", new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]))).toThrow(/legacy Office file/);
    expect(() => detectFormat("scan.gif", new Uint8Array([0x47, 0x49, 0x46, 0x38, 1, 2]))).toThrow(/GIF image.*supported: PDF, DOCX, XLSX, PPTX, EPUB, EML/);
  });

  test("reads text formats from the extension, then the declared MIME type, then the content", () => {
    expect(detectFormat("a.md", text("# Title")).format).toBe("markdown");
    expect(detectFormat("a.htm", text("<p>x</p>")).format).toBe("html");
    expect(detectFormat("a.txt", text("plain")).format).toBe("text");
    expect(detectFormat("notes", text("# Title"), "text/markdown; charset=utf-8").format).toBe("markdown");
    expect(detectFormat("page", text("  <!DOCTYPE html><html></html>")).format).toBe("html");
  });

  test("reads source code from the extension, with its language", () => {
    expect(detectFormat("main.py", text("print(1)"))).toEqual({ format: "code", mimeType: "text/x-python", language: "python" });
    expect(detectFormat("lib.rs", text("fn main() {}")).language).toBe("rust");
    expect(detectFormat("app.ts", text("export {}")).language).toBe("typescript");
    expect(detectFormat("query.sql", text("select 1")).language).toBe("sql");
  });

  test("empty input is an EmptyFileError", () => {
    expect(() => detectFormat("a.pdf", new Uint8Array())).toThrow(EmptyFileError);
  });

  test("unknown binaries and images other than PNG, JPEG and TIFF are UnsupportedFormatErrors", () => {
    expect(() => detectFormat("blob.dat", new Uint8Array([0x01, 0x02, 0x00, 0x03, 0xff]))).toThrow(UnsupportedFormatError);
    expect(() => detectFormat("photo.txt", new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61]))).toThrow(/GIF image/);
    expect(() => detectFormat("archive.zip", new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]))).toThrow(UnsupportedFormatError);
  });

  test("a file named as PDF or DOCX that is not one is a CorruptFileError", () => {
    expect(() => detectFormat("report.pdf", text("just some text"))).toThrow(CorruptFileError);
    expect(() => detectFormat("letter.docx", text("just some text"))).toThrow(CorruptFileError);
  });
});

describe("parseDocument errors", () => {
  test("the three error classes are distinct and share one base", async () => {
    const failures = await Promise.all([
      parseDocument("empty.txt", new Uint8Array()).catch((error: unknown) => error),
      parseDocument("broken.pdf", text("%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage, no xref, no trailer")).catch((error: unknown) => error),
      parseDocument("blob.bin", new Uint8Array([0, 1, 2, 3, 4, 5])).catch((error: unknown) => error),
    ]);
    expect(failures[0]).toBeInstanceOf(EmptyFileError);
    expect(failures[1]).toBeInstanceOf(CorruptFileError);
    expect(failures[2]).toBeInstanceOf(UnsupportedFormatError);
    for (const failure of failures) expect(failure).toBeInstanceOf(DocumentInputError);
    expect(failures[1]).not.toBeInstanceOf(EmptyFileError);
    expect((failures[1] as Error).message).toContain("PDF cannot be opened");
  });

  test("a truncated PDF is corrupt", async () => {
    const { bytes } = await samplePdf();
    await expect(parseDocument("cut.pdf", bytes.subarray(0, 400))).rejects.toBeInstanceOf(CorruptFileError);
  });

  test("a truncated DOCX (a zip with no central directory) is corrupt", async () => {
    const { bytes } = await sampleDocx();
    await expect(parseDocument("cut.docx", bytes.subarray(0, bytes.length / 2))).rejects.toBeInstanceOf(CorruptFileError);
  });

  test("whitespace-only text is empty", async () => {
    await expect(parseDocument("blank.md", text(" \n\n\t\n"))).rejects.toBeInstanceOf(EmptyFileError);
  });

  test("text of invisible characters only is empty; such a paragraph inside a document is dropped", async () => {
    await expect(parseDocument("zero-width.txt", text("\u200b\u200b\n\n\u2060\ufeff"))).rejects.toBeInstanceOf(EmptyFileError);
    const parsed = await parseDocument("mixed.txt", text("First paragraph.\n\n\u200b\u200b\u200b\n\nLast paragraph."));
    expect(parsed.blocks.map((block) => block.text)).toEqual(["First paragraph.", "Last paragraph."]);
  });
});
