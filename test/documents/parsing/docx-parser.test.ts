import { beforeAll, describe, expect, test } from "bun:test";
import { parseDocument, type ParsedDocument } from "../../../src/documents/parsing/index.ts";
import { makeDocx } from "../../fixtures-gen/make-docx.ts";
import { PRICE_TABLE, sampleDocx, STOCK_TABLE } from "../../fixtures-gen/sample-documents.ts";

describe("DOCX parsing (real .docx from the docx package, read by mammoth)", () => {
  let doc: ParsedDocument;
  beforeAll(async () => {
    const { filename, bytes } = await sampleDocx();
    doc = await parseDocument(filename, bytes);
  });

  test("is one unpaginated page", () => {
    expect(doc).toMatchObject({ format: "docx", pageCount: 1, paginated: false });
    expect(doc.blocks.every((block) => block.page === null)).toBe(true);
  });

  test("Heading 1 and Heading 2 styles become headings with levels and section numbers", () => {
    const headings = doc.blocks.filter((block) => block.kind === "heading").map(({ text, level, sectionNumber }) => [text, level, sectionNumber]);
    expect(headings).toEqual([
      ["1 Overview", 1, "1"],
      ["1.1 Prices", 2, "1.1"],
      ["2 Logistics", 1, "2"],
      ["2.1 Stock", 2, "2.1"],
      ["2.2 Contacts", 2, "2.2"],
    ]);
  });

  test("tables keep rows, columns and headers, marked header row or not", () => {
    const tables = doc.blocks.filter((block) => block.kind === "table").map((block) => block.table);
    expect(tables).toEqual([
      { rows: 4, columns: 3, headers: PRICE_TABLE[0], body: PRICE_TABLE.slice(1) },
      { rows: 3, columns: 2, headers: STOCK_TABLE[0], body: STOCK_TABLE.slice(1) },
    ]);
  });

  test("the Caption style and bulleted paragraphs survive", () => {
    expect(doc.blocks.find((block) => block.kind === "caption")?.text).toBe("Table 1: Fruit prices");
    expect(doc.blocks.find((block) => block.kind === "list")?.text).toBe("- Anna Berg, logistics\n- Tom Lund, purchasing");
  });

  test("a one-row table has no header row", async () => {
    const bytes = await makeDocx([{ table: [["only", "row"]] }]);
    const [block] = (await parseDocument("row.docx", bytes)).blocks;
    expect(block.table).toEqual({ rows: 1, columns: 2, headers: [], body: [["only", "row"]] });
  });
});
