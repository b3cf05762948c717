/**
 * PDF structure as real manuals lay it out (issue 19): sections from the outline when there is
 * one, from numbering and type size when there is not; tables only where columns line up;
 * tables of contents, indexes, listings and side-by-side prose are not tables or sections.
 */
import { describe, expect, test } from "bun:test";
import { chunkDocument } from "../../../src/documents/chunking/index.ts";
import { parseDocument, type Block } from "../../../src/documents/parsing/index.ts";
import { countWords } from "../chunking/stand-ins.ts";
import { makePdf, type PdfElement } from "../../fixtures-gen/make-pdf.ts";

const PROSE = "The reader follows the method step by step and checks every result against the reference before going on to the next part.";

const headings = (blocks: Block[]) => blocks.filter((block) => block.kind === "heading").map(({ text, level, sectionNumber, page }) => ({ text, level, sectionNumber, page }));
const tables = (blocks: Block[]) => blocks.filter((block) => block.kind === "table");

/** A contents page as LaTeX sets it: number, title, dot leaders, page number at the right margin. */
const CONTENTS: PdfElement[] = [
  { heading: "Contents", level: 1 },
  { table: [["1 Introduction . . . . . . . . . . . .", "2"], ["1.1 Version . . . . . . . . . . . .", "2"], ["1.2 What is this spec? . . . . . .", "2"], ["2 Usage . . . . . . . . . . . . . . . .", "3"]] },
];

const BODY: PdfElement[][] = [
  [
    { heading: "1 Introduction", level: 1 },
    { paragraph: PROSE },
    { heading: "1.1 Version", level: 3 },
    { paragraph: PROSE },
    { heading: "1.2 What is this spec?", level: 3 },
    { paragraph: PROSE },
  ],
  [{ heading: "2 Usage", level: 1 }, { paragraph: PROSE }, { bookmark: "2.1 Drawn as a picture", level: 2 }, { paragraph: PROSE }],
];

describe("sections from the PDF outline", () => {
  test("headings are the bookmarks, nested as the outline nests them, on their pages; the contents page is not a body section", async () => {
    const bytes = await makePdf([CONTENTS, ...BODY], { outline: true });
    const blocks = (await parseDocument("manual.pdf", bytes)).blocks;
    expect(headings(blocks)).toEqual([
      { text: "Contents", level: 1, sectionNumber: null, page: 1 },
      { text: "1 Introduction", level: 1, sectionNumber: "1", page: 2 },
      // Set in a smaller type than "1 Introduction" but nested one level down by the outline.
      { text: "1.1 Version", level: 2, sectionNumber: "1.1", page: 2 },
      { text: "1.2 What is this spec?", level: 2, sectionNumber: "1.2", page: 2 },
      { text: "2 Usage", level: 1, sectionNumber: "2", page: 3 },
      // No text for it on the page: the bookmark's title becomes the heading at its target.
      { text: "2.1 Drawn as a picture", level: 2, sectionNumber: "2.1", page: 3 },
    ]);
    expect(tables(blocks)).toEqual([]);
    const afterPicture = blocks.findIndex((block) => block.text === "2.1 Drawn as a picture");
    expect(blocks[afterPicture - 1].text).toBe(PROSE);
    expect(blocks[afterPicture + 1]).toMatchObject({ kind: "paragraph", text: PROSE, page: 3 });
  });

  test("a title that also appears in running text on its page is placed at the bookmark's height", async () => {
    const bytes = await makePdf(
      [[{ paragraph: "Options" }, { paragraph: PROSE }, { heading: "Options", level: 1 }, { paragraph: PROSE }]],
      { outline: true },
    );
    const blocks = (await parseDocument("options.pdf", bytes)).blocks;
    expect(blocks.map((block) => block.kind)).toEqual(["paragraph", "paragraph", "heading", "paragraph"]);
  });
});

describe("an outline of chapters only", () => {
  test("numbered sections deeper than the outline still come from layout, nested under their bookmarked chapter", async () => {
    const bytes = await makePdf(BODY, { outline: { maxLevel: 1 } });
    const blocks = (await parseDocument("chapters.pdf", bytes)).blocks;
    expect(headings(blocks).map(({ text, level }) => [text, level])).toEqual([
      ["1 Introduction", 1],
      ["1.1 Version", 2],
      ["1.2 What is this spec?", 2],
      ["2 Usage", 1],
    ]);
  });
});

describe("sections from layout (no outline)", () => {
  test("numbered siblings stay siblings whatever their type size; the contents page gives no headings and no table", async () => {
    const blocks = (await parseDocument("manual.pdf", await makePdf([CONTENTS, ...BODY]))).blocks;
    const found = headings(blocks).filter((heading) => heading.page! > 1);
    expect(found).toEqual([
      { text: "1 Introduction", level: 1, sectionNumber: "1", page: 2 },
      { text: "1.1 Version", level: 2, sectionNumber: "1.1", page: 2 },
      { text: "1.2 What is this spec?", level: 2, sectionNumber: "1.2", page: 2 },
      { text: "2 Usage", level: 1, sectionNumber: "2", page: 3 },
    ]);
    expect(headings(blocks).filter((heading) => heading.page === 1).map((heading) => heading.text)).toEqual(["Contents"]);
    expect(tables(blocks)).toEqual([]);
  });

  test("Chapter and roman-numbered headings carry their number", async () => {
    const bytes = await makePdf([[{ heading: "Chapter 4 Results", level: 1 }, { paragraph: PROSE }, { heading: "IV. Discussion", level: 1 }, { paragraph: PROSE }]]);
    expect(headings((await parseDocument("chapters.pdf", bytes)).blocks)).toEqual([
      { text: "Chapter 4 Results", level: 1, sectionNumber: "4", page: 1 },
      { text: "IV. Discussion", level: 1, sectionNumber: "IV", page: 1 },
    ]);
  });
});

describe("tables need columns", () => {
  test("a real table: columns line up over several rows; rows and columns counted", async () => {
    const rows = [["Sample", "Mass (g)", "Volume (ml)"], ["A1", "12.5", "30"], ["B2", "8.1", "22"], ["C3", "9.9", "25"]];
    const [table] = tables((await parseDocument("t.pdf", await makePdf([[{ paragraph: PROSE }, { table: rows }]]))).blocks);
    expect(table.table).toMatchObject({ rows: 4, columns: 3, headers: rows[0] });
  });

  test("two aligned lines are not enough evidence", async () => {
    const blocks = (await parseDocument("t.pdf", await makePdf([[{ paragraph: PROSE }, { table: [["Name", "Value"], ["alpha", "1"]] }]]))).blocks;
    expect(tables(blocks)).toEqual([]);
  });

  test("index entries, a line-numbered listing and prose set side by side are not tables", async () => {
    const index = [["alpha, 3, 17", "gamma, 12"], ["beta, 5", "delta, 8, 9"], ["bravo, 22", "echo, 40"], ["charlie, 7", "foxtrot, 2"]];
    const listing = [["12", "\\def\\x{1}"], ["13", "\\let\\y\\x"], ["14", "\\show\\y"], ["15", "\\endinput"]];
    const prose = [0, 1, 2, 3].map(() => ["Each side of the page holds its own", "column of running text that goes on"]);
    for (const rows of [index, listing, prose]) {
      const blocks = (await parseDocument("t.pdf", await makePdf([[{ paragraph: PROSE }, { table: rows }]]))).blocks;
      expect(tables(blocks)).toEqual([]);
      expect(blocks.map((block) => block.text).join(" ")).toContain(rows[1][0]);
    }
  });

  test("an orphan PDF table (alone between two headings) is a table chunk with its synthetic context", async () => {
    const rows = [["Sample", "Mass (g)", "Volume (ml)"], ["A1", "12.5", "30"], ["B2", "8.1", "22"], ["C3", "9.9", "25"]];
    const bytes = await makePdf([[{ heading: "1 Samples", level: 1 }, { table: rows }, { heading: "2 Method", level: 1 }, { paragraph: PROSE }]], { outline: true });
    const chunks = await chunkDocument(await parseDocument("orphan.pdf", bytes), { strategy: "recursive", chunkSize: 200, chunkOverlap: 0, countTokens: countWords });
    const table = chunks.find((chunk) => chunk.chunk_type === "table")!;
    expect(table).toMatchObject({ contains_table: true, section_hierarchy: ["1 Samples"], section_number: "1", table_metadata: { rows: 4, columns: 3, headers: rows[0] } });
    expect(table.synthetic_context).toContain('Table in section "1 Samples"');
    expect(table.synthetic_context).toContain("Columns: Sample, Mass (g), Volume (ml).");
    expect(chunks.filter((chunk) => chunk !== table).every((chunk) => !chunk.contains_table && chunk.synthetic_context === null)).toBe(true);
  });
});
