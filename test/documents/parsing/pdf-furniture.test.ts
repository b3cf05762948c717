/**
 * Page furniture (issue 53): running headers and footers repeated at the top or bottom of pages,
 * with their page numbers changing, are kept out of sections and chunk text; a table's header row
 * repeated on every page it spans, and a page printed several times, are content and stay.
 */
import { describe, expect, test } from "bun:test";
import { chunkDocument } from "../../../src/documents/chunking/index.ts";
import { parseDocument } from "../../../src/documents/parsing/index.ts";
import { countWords } from "../chunking/stand-ins.ts";
import { makePdf, type PdfElement } from "../../fixtures-gen/make-pdf.ts";

const TOPICS = ["Installation", "Configuration", "Upgrades", "Backups", "Monitoring"];
const prose = (topic: string) => `${topic} is described here in enough detail for an operator to follow it step by step on a production host.`;

/** A manual whose every page opens with a running head (title and page number, like LaTeX's) and closes with a footer. */
function manualPages(): PdfElement[][] {
  return TOPICS.map((topic, i) => [
    { table: [[`${i + 2}`, "SIEVE OPERATIONS HANDBOOK"]] },
    { heading: `${i + 1} ${topic}`, level: 1 },
    { paragraph: prose(topic) },
    { paragraph: `More on ${topic.toLowerCase()}: the defaults suit most hosts, and the exceptions are listed below.` },
    { paragraph: `Revision ${i + 7} · Confidential draft, do not distribute` },
  ]);
}

describe("running headers and footers", () => {
  test("are neither sections nor chunk text; the real headings and prose stay", async () => {
    const doc = await parseDocument("handbook.pdf", await makePdf(manualPages()));
    const text = doc.blocks.map((block) => block.text).join("\n");
    expect(text).not.toContain("SIEVE OPERATIONS HANDBOOK");
    expect(text).not.toContain("Confidential draft");
    expect(doc.blocks.filter((block) => block.kind === "heading").map((block) => block.text)).toEqual(TOPICS.map((topic, i) => `${i + 1} ${topic}`));
    const chunks = await chunkDocument(doc, { strategy: "recursive", chunkSize: 200, chunkOverlap: 0, countTokens: countWords });
    for (const chunk of chunks) {
      expect(chunk.section_hierarchy.join(" ")).not.toMatch(/HANDBOOK|Confidential/);
      expect(chunk.text).not.toMatch(/HANDBOOK|Confidential/);
    }
    for (const topic of TOPICS) expect(chunks.some((chunk) => chunk.text.includes(prose(topic)))).toBe(true);
  });

  test("a table's header row repeated at the top of every page it spans stays the header of each piece", async () => {
    const pages: PdfElement[][] = [0, 1, 2].map((page) => [
      { table: [["Item", "Unit price", "Stock"], ...[1, 2, 3].map((row) => [`Part ${page * 3 + row}`, `${page + row}.50`, `${row * 10}`])] },
      { paragraph: prose(TOPICS[page]!) },
    ]);
    const doc = await parseDocument("prices.pdf", await makePdf(pages));
    const tables = doc.blocks.filter((block) => block.kind === "table");
    expect(tables.map((table) => table.page)).toEqual([1, 2, 3]);
    for (const table of tables) expect(table.table).toMatchObject({ rows: 4, columns: 3, headers: ["Item", "Unit price", "Stock"] });
  });

  test("the same page printed three times is content, not furniture", async () => {
    const page: PdfElement[] = [{ heading: "Notice", level: 1 }, { paragraph: prose("The notice") }];
    const doc = await parseDocument("notices.pdf", await makePdf([page, page, page]));
    expect(doc.blocks.filter((block) => block.text === "Notice")).toHaveLength(3);
  });
});
