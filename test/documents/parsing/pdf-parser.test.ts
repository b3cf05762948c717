import { beforeAll, describe, expect, test } from "bun:test";
import { EmptyFileError, parseDocument, type ParsedDocument } from "../../../src/documents/parsing/index.ts";
import { makePdf } from "../../fixtures-gen/make-pdf.ts";
import { SAMPLE_TABLE, samplePdf, SCOPE_AFTER_TABLE } from "../../fixtures-gen/sample-documents.ts";

describe("PDF parsing (real PDF from pdf-lib)", () => {
  let doc: ParsedDocument;
  beforeAll(async () => {
    const { filename, bytes } = await samplePdf();
    doc = await parseDocument(filename, bytes);
  });

  test("reports the real page count", () => {
    expect(doc).toMatchObject({ format: "pdf", mimeType: "application/pdf", pageCount: 3, paginated: true });
  });

  test("finds numbered headings with their level, number and real page", () => {
    const headings = doc.blocks.filter((block) => block.kind === "heading");
    expect(headings.map(({ text, level, sectionNumber, page }) => ({ text, level, sectionNumber, page }))).toEqual([
      { text: "1 Introduction", level: 1, sectionNumber: "1", page: 1 },
      { text: "1.1 Background", level: 2, sectionNumber: "1.1", page: 1 },
      { text: "2 Methods", level: 1, sectionNumber: "2", page: 2 },
      { text: "2.1 Scope", level: 2, sectionNumber: "2.1", page: 2 },
      { text: "2.2 Results", level: 2, sectionNumber: "2.2", page: 3 },
      { text: "3 Conclusion", level: 1, sectionNumber: "3", page: 3 },
    ]);
  });

  test("rebuilds a table from text aligned in columns, first row as header", () => {
    const table = doc.blocks.find((block) => block.kind === "table")!;
    expect(table.page).toBe(2);
    expect(table.table).toEqual({ rows: 4, columns: 3, headers: SAMPLE_TABLE[0], body: SAMPLE_TABLE.slice(1) });
    expect(table.text.split("\n")[0]).toBe("| Sample | Mass (g) | Volume (ml) |");
  });

  test("keeps the caption as its own block, joins wrapped lines into paragraphs, drops page numbers", () => {
    expect(doc.blocks.find((block) => block.kind === "caption")).toMatchObject({ text: "Table 1: Reference samples", page: 2 });
    expect(doc.blocks.find((block) => block.text === SCOPE_AFTER_TABLE)).toMatchObject({ kind: "paragraph", page: 2 });
    expect(doc.blocks.some((block) => /^\d+$/.test(block.text))).toBe(false);
  });

  test("a table row with an empty cell stays in the table", async () => {
    const bytes = await makePdf([[{ paragraph: "Stock levels follow." }, { table: [["Item", "Count"], ["Bolts", "4"], ["Nuts", ""], ["Screws", "9"]] }]]);
    const table = (await parseDocument("stock.pdf", bytes)).blocks.find((block) => block.kind === "table")!;
    expect(table.table?.body).toEqual([["Bolts", "4"], ["Nuts", ""], ["Screws", "9"]]);
  });

  test("bullet lines become a list block", async () => {
    const bytes = await makePdf([[{ paragraph: "Points to check:" }, { bullets: ["first point", "second point"] }]]);
    const blocks = (await parseDocument("list.pdf", bytes)).blocks;
    expect(blocks[1]).toEqual({ kind: "list", text: "• first point\n• second point", page: 1 });
  });

  test("a PDF without a text layer is refused as empty", async () => {
    const bytes = await makePdf([[]], { pageNumbers: false });
    await expect(parseDocument("scan.pdf", bytes)).rejects.toThrow(EmptyFileError);
    await expect(parseDocument("scan.pdf", bytes)).rejects.toThrow(/no text layer/);
  });
});
