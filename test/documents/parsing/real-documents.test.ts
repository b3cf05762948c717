/**
 * Documents written by real tools (test/fixtures/real/README.md): a Node.js API page, the same
 * page saved as DOCX and exported to PDF by LibreOffice, and Texinfo pages of the libffi manual.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chunkDocument } from "../../../src/documents/chunking/index.ts";
import { parseDocument, type Block, type ParsedDocument } from "../../../src/documents/parsing/index.ts";
import { countWords } from "../chunking/stand-ins.ts";

const FIXTURES = join(import.meta.dir, "../../fixtures/real");
const parseFixture = (name: string): Promise<ParsedDocument> => parseDocument(name, new Uint8Array(readFileSync(join(FIXTURES, name))));

const API_HEADINGS = [
  "querystring.decode()",
  "querystring.encode()",
  "querystring.escape(str)",
  "querystring.parse(str[, sep[, eq[, options]]])",
  "querystring.stringify(obj[, sep[, eq[, options]]])",
  "querystring.unescape(str)",
];
const HISTORY_HEADERS = ["Version", "Changes"];
const HISTORY_FIRST_ROW = ["v8.0.0", "Multiple empty entries are now parsed correctly (e.g. &=&=)."];

const headings = (blocks: Block[]) => blocks.filter((block) => block.kind === "heading");
const allText = (blocks: Block[]) => blocks.map((block) => block.text).join("\n");

describe("an HTML page from a documentation generator (Node.js API docs)", () => {
  test("only the page's main content: no skip link, site navigation, version picker or table of contents", async () => {
    const { blocks } = await parseFixture("nodejs-querystring.html");
    expect(headings(blocks).map(({ text, level }) => [text, level])).toEqual([["Query string", 2], ...API_HEADINGS.map((text) => [text, 3])]);
    expect(blocks[0]).toMatchObject({ kind: "heading", text: "Query string" });
    const text = allText(blocks);
    for (const boilerplate of ["Skip to content", "Assertion testing", "Table of contents", "Node.js v20.20.2"]) expect(text).not.toContain(boilerplate);
  });

  test("its <table> with header row, code blocks without their copy button", async () => {
    const { blocks } = await parseFixture("nodejs-querystring.html");
    const [history] = blocks.filter((block) => block.kind === "table");
    expect(history.table).toMatchObject({ rows: 5, columns: 2, headers: HISTORY_HEADERS });
    expect(history.table!.body[0]).toEqual(HISTORY_FIRST_ROW);
    const code = blocks.filter((block) => block.kind === "code");
    expect(code.length).toBeGreaterThanOrEqual(4);
    expect(code.every((block) => !/copy$/.test(block.text))).toBe(true);
    expect(code.find((block) => block.language === "js")?.text).toBe("const querystring = require('node:querystring');");
  });
});

describe("Texinfo HTML (libffi manual)", () => {
  test("the navigation header and the ¶ permalinks are dropped", async () => {
    const { blocks } = await parseFixture("libffi-the-basics.html");
    expect(blocks[0]).toMatchObject({ kind: "heading", text: "2.1 The Basics", level: 3, sectionNumber: "2.1" });
    const text = allText(blocks);
    expect(text).not.toContain("Next:");
    expect(text).not.toContain("¶");
    expect(text).toContain("Function: void ffi_call (ffi_cif *cif, void *fn, void *rvalue, void **avalues)");
  });

  test("an index page: its link tables are navigation, not data tables", async () => {
    const { blocks } = await parseFixture("libffi-index.html");
    expect(blocks.filter((block) => block.kind === "table")).toEqual([]);
    expect(headings(blocks).map((block) => block.text)).toEqual(["Index"]);
  });
});

describe("a DOCX written by LibreOffice", () => {
  test("headings from the Heading styles, the table from w:tbl, lists, preformatted paragraphs as code", async () => {
    const { blocks } = await parseFixture("nodejs-querystring.docx");
    expect(headings(blocks).map(({ text, level }) => [text, level])).toEqual([
      ["Node.js v20.20.2 documentation", 1],
      ["Query string", 2],
      ...API_HEADINGS.map((text) => [text, 3]),
    ]);
    const [history] = blocks.filter((block) => block.kind === "table");
    expect(history.table).toMatchObject({ rows: 5, columns: 2, headers: HISTORY_HEADERS });
    expect(history.table!.body[0]).toEqual(HISTORY_FIRST_ROW);
    expect(blocks.some((block) => block.kind === "list" && block.text.includes("- str <string> The URL query string to parse"))).toBe(true);
    const code = blocks.find((block) => block.kind === "code" && block.text.startsWith("// Assuming gbkDecodeURIComponent"));
    expect(code?.text.split("\n").length).toBe(3);
  });
});

describe("a PDF exported by LibreOffice (bookmarks from the headings)", () => {
  test("sections from the outline, on their pages; the table from its columns; chunk types consistent", async () => {
    const doc = await parseFixture("nodejs-querystring.pdf");
    expect(doc.pageCount).toBe(7);
    expect(headings(doc.blocks).map(({ text, level, page }) => [text, level, page])).toEqual([
      ["Node.js v20.20.2 documentation", 1, 2],
      ["Query string#", 2, 4],
      ["querystring.decode()#", 3, 5],
      ["querystring.encode()#", 3, 5],
      ["querystring.escape(str)#", 3, 5],
      ["querystring.parse(str[, sep[, eq[, options]]])#", 3, 5],
      ["querystring.stringify(obj[, sep[, eq[, options]]])#", 3, 6],
      ["querystring.unescape(str)#", 3, 6],
    ]);
    // Known limit: the third row's two cells are set too close to tell apart, so the table ends before it.
    const tables = doc.blocks.filter((block) => block.kind === "table");
    expect(tables).toHaveLength(1);
    expect(tables[0].table).toMatchObject({ columns: 2, headers: HISTORY_HEADERS });
    expect(tables[0].table!.body[0]).toEqual(HISTORY_FIRST_ROW);

    const chunks = await chunkDocument(doc, { strategy: "recursive", chunkSize: 200, chunkOverlap: 20, countTokens: countWords });
    for (const chunk of chunks) {
      expect(chunk.contains_table).toBe(chunk.chunk_type === "table");
      expect(chunk.table_metadata !== null).toBe(chunk.chunk_type === "table");
      expect(chunk.page_number).not.toBeNull();
    }
    const tableChunk = chunks.find((chunk) => chunk.chunk_type === "table")!;
    expect(tableChunk.section_hierarchy).toEqual(["Node.js v20.20.2 documentation", "Query string#", "querystring.parse(str[, sep[, eq[, options]]])#"]);
    expect(tableChunk.table_metadata).toMatchObject({ rows: 3, columns: 2, headers: HISTORY_HEADERS });
    expect(chunks.filter((chunk) => chunk.chunk_type === "table").length / chunks.length).toBeLessThanOrEqual(0.2);
  });
});

describe("EPUBs written by LibreOffice (test/fixtures/converted): headings as styled paragraphs", () => {
  const parseConverted = (name: string) => parseDocument(name, new Uint8Array(readFileSync(join(FIXTURES, "../converted", name))));

  test("the Node.js page: sizes 24, 18 and 14 pt over 12 pt body text give the DOCX's three heading levels", async () => {
    const { blocks } = await parseConverted("querystring.epub");
    expect(headings(blocks).map(({ text, level }) => [text, level])).toEqual([
      ["Section 1", 1], // the first spine item (the page's site navigation, before the DOCX's first heading), named by the table of contents
      ["Node.js v20.20.2 documentation", 1],
      ["Query string#", 2],
      ...API_HEADINGS.map((text) => [`${text}#`, 3]),
    ]);
    // The table of contents' entries are links at body size: not headings.
    expect(allText(blocks)).toContain("Table of contents");
  });

  test("the sample DOCX: 16 and 13 pt headings, a 9 pt caption stays text", async () => {
    const { blocks } = await parseConverted("sample.epub");
    expect(headings(blocks).map(({ text, level, sectionNumber }) => [text, level, sectionNumber])).toEqual([
      ["1 Overview", 1, "1"],
      ["1.1 Prices", 2, "1.1"],
      ["2 Logistics", 1, "2"],
      ["2.1 Stock", 2, "2.1"],
      ["2.2 Contacts", 2, "2.2"],
    ]);
    expect(blocks.find((block) => block.text === "Table 1: Fruit prices")?.kind).not.toBe("heading");
  });
});
