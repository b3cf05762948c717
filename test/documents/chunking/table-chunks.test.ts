import { describe, expect, test } from "bun:test";
import { chunkDocument, type ChunkDraft } from "../../../src/documents/chunking/index.ts";
import { parseDocument } from "../../../src/documents/parsing/index.ts";
import { sampleDocx, sampleHtml, sampleMarkdown } from "../../fixtures-gen/sample-documents.ts";
import { countWords } from "./stand-ins.ts";

const options = { strategy: "recursive" as const, chunkSize: 512, chunkOverlap: 50, countTokens: countWords };

async function chunksOf(file: { filename: string; bytes: Uint8Array }): Promise<ChunkDraft[]> {
  return chunkDocument(await parseDocument(file.filename, file.bytes), options);
}

describe("table chunks from a real DOCX", () => {
  test("the explained table: chunk_type table, contains_table, rows/columns/headers, caption, no synthetic context", async () => {
    const prices = (await chunksOf(await sampleDocx())).find((chunk) => chunk.metadata.caption === "Table 1: Fruit prices")!;
    expect(prices).toMatchObject({
      chunk_type: "table",
      contains_table: true,
      table_metadata: { rows: 4, columns: 3, headers: ["Item", "Quantity", "Unit price"] },
      section_hierarchy: ["1 Overview", "1.1 Prices"],
      section_number: "1.1",
      page_number: null,
      page_range: [],
      synthetic_context: null,
    });
  });

  test("the orphan table (alone in its section) gets a synthetic context from path, headers and neighbouring text", async () => {
    const stock = (await chunksOf(await sampleDocx())).find((chunk) => chunk.section_number === "2.1")!;
    expect(stock).toMatchObject({ chunk_type: "table", contains_table: true, table_metadata: { rows: 3, columns: 2, headers: ["Warehouse", "Pallets"] } });
    expect(stock.synthetic_context).toBe(
      'Table in section "2 Logistics > 2.1 Stock". Columns: Warehouse, Pallets. ' +
        'Preceding text: "Deliveries leave the warehouses every morning at six." Following text: "- Anna Berg, logistics"',
    );
    // Its section heading has no prose to go with, so it opens the table chunk.
    expect(stock.text.startsWith("2.1 Stock\n\n| Warehouse | Pallets |")).toBe(true);
  });

  test("every chunk of the DOCX is in order and nothing but tables contain tables", async () => {
    const chunks = await chunksOf(await sampleDocx());
    expect(chunks.map((chunk) => [chunk.chunk_type, chunk.contains_table])).toEqual([
      ["text", false],
      ["text", false],
      ["table", true],
      ["text", false],
      ["table", true],
      ["text", false],
    ]);
  });
});

describe("table chunks from HTML and Markdown", () => {
  test("HTML: the caption element travels with its table; the paragraph before it means no synthetic context", async () => {
    const table = (await chunksOf(sampleHtml())).find((chunk) => chunk.chunk_type === "table")!;
    expect(table).toMatchObject({ table_metadata: { rows: 3, columns: 2, headers: ["Flag", "Meaning"] }, synthetic_context: null });
    expect(table.metadata.caption).toBe("Table 1: Command-line options");
  });

  test("Markdown: a table between two headings is an orphan; its context names section, columns and neighbours", async () => {
    const table = (await chunksOf(sampleMarkdown())).find((chunk) => chunk.chunk_type === "table")!;
    expect(table.section_hierarchy).toEqual(["1 Setup", "1.1 Configuration"]);
    expect(table.synthetic_context).toContain('Table in section "1 Setup > 1.1 Configuration".');
    expect(table.synthetic_context).toContain("Columns: Key, Default, Meaning.");
    expect(table.synthetic_context).toContain('Following text: "Run the server with the script below."');
  });

  test("a table with only another table beside it is an orphan; with a paragraph after it, it is not", async () => {
    const markdown = [
      "# Data",
      "| a | b |\n|---|---|\n| 1 | 2 |",
      "Table 2: Second set",
      "| c | d |\n|---|---|\n| 3 | 4 |",
      "The second table repeats the first with new values.",
    ].join("\n\n");
    const chunks = await chunkDocument(await parseDocument("t.md", new TextEncoder().encode(markdown)), options);
    const tables = chunks.filter((chunk) => chunk.chunk_type === "table");
    expect(tables[0].synthetic_context).toBe('Table in section "Data". Columns: a, b. Following text: "The second table repeats the first with new values."');
    expect(tables[1].synthetic_context).toBeNull();
    expect(tables[1].metadata.caption).toBe("Table 2: Second set");
  });

  test("a code block in prose rides with the prose; a chunk holding only code is a code chunk", async () => {
    const chunks = await chunksOf(sampleHtml());
    const example = chunks.find((chunk) => chunk.section_number === "1.2")!;
    expect(example.chunk_type).toBe("text");
    expect(example.text).toContain('def main():\n    print("hello")');
    const onlyCode = await chunkDocument(await parseDocument("c.md", new TextEncoder().encode("```js\nlet a = 1;\n```\n")), options);
    expect(onlyCode[0]).toMatchObject({ chunk_type: "code", metadata: { language: "js" } });
  });
});

describe("tables kept inline (tableInlineMaxTokens)", () => {
  test("the captioned table of the DOCX joins its prose, caption included, with the table's shape in metadata", async () => {
    const doc = await parseDocument((await sampleDocx()).filename, (await sampleDocx()).bytes);
    const chunks = await chunkDocument(doc, { ...options, tableInlineMaxTokens: 60 });
    const prices = chunks.find((chunk) => chunk.text.includes("| Item | Quantity | Unit price |"))!;
    expect(prices).toMatchObject({ chunk_type: "text", contains_table: true, table_metadata: { rows: 4, columns: 3, headers: ["Item", "Quantity", "Unit price"] } });
    expect(prices.text).toContain("Table 1: Fruit prices");
    expect(prices.metadata.caption).toBeUndefined();
    expect(prices.metadata.inline_tables).toEqual([prices.table_metadata!]);
  });

  test("a small table that would have to be cut beside the headings waiting for content stays a table chunk", async () => {
    const doc = await parseDocument((await sampleDocx()).filename, (await sampleDocx()).bytes);
    const stock = doc.blocks.find((block) => block.kind === "table" && block.table!.headers.includes("Warehouse"))!;
    // Section 2.1 has no prose before its table: "2.1 Stock" waits for content, and heading + table exceed the chunk size.
    const size = countWords(stock.text);
    const chunks = await chunkDocument(doc, { ...options, chunkSize: size, chunkOverlap: 0, tableInlineMaxTokens: size });
    const pieces = chunks.filter((chunk) => chunk.text.includes("| Warehouse | Pallets |"));
    expect(pieces.length).toBeGreaterThan(0);
    for (const piece of pieces) expect(piece).toMatchObject({ chunk_type: "table", contains_table: true, table_metadata: { columns: 2 } });
    // With room for the heading, the same table is kept inline.
    const roomy = await chunkDocument(doc, { ...options, chunkSize: size + 10, chunkOverlap: 0, tableInlineMaxTokens: size });
    expect(roomy.find((chunk) => chunk.text.includes("| Warehouse | Pallets |"))).toMatchObject({ chunk_type: "text", contains_table: true, table_metadata: { rows: 3, columns: 2 } });
  });
});
