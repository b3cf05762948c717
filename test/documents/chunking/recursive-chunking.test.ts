import { describe, expect, test } from "bun:test";
import { chunkDocument, documentText, type ChunkDraft } from "../../../src/documents/chunking/index.ts";
import { parseDocument, type ParsedDocument } from "../../../src/documents/parsing/index.ts";
import { makePdf } from "../../fixtures-gen/make-pdf.ts";
import { samplePdf, samplePython } from "../../fixtures-gen/sample-documents.ts";
import { countWords } from "./stand-ins.ts";

const recursive = (chunkSize: number, chunkOverlap: number) => ({ strategy: "recursive" as const, chunkSize, chunkOverlap, countTokens: countWords });

/** About `sentences` distinct sentences of 9 words each. */
function prose(sentences: number, topic = "river"): string {
  return Array.from({ length: sentences }, (_, i) => `Sentence number ${i + 1} talks about the ${topic} at length.`).join(" ");
}

async function parseText(filename: string, text: string): Promise<ParsedDocument> {
  return parseDocument(filename, new TextEncoder().encode(text));
}

function expectWellFormed(chunks: ChunkDraft[], chunkSize: number): void {
  expect(chunks.map((chunk) => chunk.chunk_index)).toEqual(chunks.map((_, i) => i));
  for (const chunk of chunks) {
    expect(chunk.tokens).toBe(countWords(chunk.text));
    expect(chunk.tokens).toBeLessThanOrEqual(chunkSize);
    expect(chunk.chunking_strategy).toBe("recursive");
    expect(chunk.quality_score).toBeGreaterThanOrEqual(0);
    expect(chunk.quality_score).toBeLessThanOrEqual(1);
    expect(chunk.bounding_box).toBeNull();
    expect(chunk.parent_index).toBeNull();
  }
}

describe("recursive chunking of the sample PDF", () => {
  test("sections, section numbers and real pages carry through to the chunks", async () => {
    const { filename, bytes } = await samplePdf();
    const chunks = await chunkDocument(await parseDocument(filename, bytes), recursive(512, 50));
    expectWellFormed(chunks, 512);
    expect(chunks.map((chunk) => [chunk.section_hierarchy, chunk.section_number, chunk.page_number, chunk.page_range, chunk.chunk_type])).toEqual([
      [["1 Introduction"], "1", 1, [1], "text"],
      [["1 Introduction", "1.1 Background"], "1.1", 1, [1], "text"],
      [["2 Methods", "2.1 Scope"], "2.1", 2, [2], "text"],
      [["2 Methods", "2.1 Scope"], "2.1", 2, [2], "table"],
      [["2 Methods", "2.1 Scope"], "2.1", 2, [2, 3], "text"],
      [["2 Methods", "2.2 Results"], "2.2", 3, [3], "text"],
      [["3 Conclusion"], "3", 3, [3], "text"],
    ]);
  });

  test("a heading without content of its own opens the chunk of its first subsection", async () => {
    const { filename, bytes } = await samplePdf();
    const chunks = await chunkDocument(await parseDocument(filename, bytes), recursive(512, 50));
    expect(chunks[2].text.startsWith("2 Methods\n\n2.1 Scope\n\nThe scope covers")).toBe(true);
    expect(chunks[2].metadata).toMatchObject({ format: "pdf", heading_level: 2, overlap_tokens: 0 });
  });

  test("the table between two paragraphs is one table chunk with its caption and no synthetic context", async () => {
    const { filename, bytes } = await samplePdf();
    const table = (await chunkDocument(await parseDocument(filename, bytes), recursive(512, 50)))[3];
    expect(table).toMatchObject({
      chunk_type: "table",
      contains_table: true,
      table_metadata: { rows: 4, columns: 3, headers: ["Sample", "Mass (g)", "Volume (ml)"] },
      synthetic_context: null,
    });
    expect(table.metadata.caption).toBe("Table 1: Reference samples");
    expect(table.text.startsWith("Table 1: Reference samples\n\n| Sample | Mass (g) | Volume (ml) |")).toBe(true);
  });

  test("text chunks contain no table", async () => {
    const { filename, bytes } = await samplePdf();
    for (const chunk of await chunkDocument(await parseDocument(filename, bytes), recursive(512, 50))) {
      if (chunk.chunk_type !== "table") expect(chunk).toMatchObject({ contains_table: false, table_metadata: null });
    }
  });
});

describe("recursive chunking: sizes, cuts and overlap", () => {
  test("every chunk fits chunkSize and indexes run 0..n-1", async () => {
    const doc = await parseText("long.txt", [prose(12), prose(3, "lake"), prose(20, "hill")].join("\n\n"));
    for (const [size, overlap] of [[30, 0], [30, 5], [64, 10], [9, 0], [10, 4]]) expectWellFormed(await chunkDocument(doc, recursive(size, overlap)), size);
  });

  test("without overlap, the chunks put back together are exactly the document text", async () => {
    const doc = await parseText("long.txt", [prose(12), prose(3, "lake"), prose(20, "hill")].join("\n\n"));
    const normalise = (text: string) => text.replace(/\s+/g, " ").trim();
    for (const size of [9, 25, 40, 1000]) {
      const chunks = await chunkDocument(doc, recursive(size, 0));
      expect(normalise(chunks.map((chunk) => chunk.text).join(" "))).toBe(normalise(documentText(doc)));
    }
  });

  test("paragraphs that fit are never cut; a paragraph too big is cut between sentences", async () => {
    const doc = await parseText("p.txt", [prose(2, "lake"), prose(2, "hill"), prose(6, "river")].join("\n\n"));
    const chunks = await chunkDocument(doc, recursive(40, 0));
    expect(chunks.map((chunk) => chunk.text)).toEqual([
      `${prose(2, "lake")}\n\n${prose(2, "hill")}`,
      prose(4, "river"),
      "Sentence number 5 talks about the river at length. Sentence number 6 talks about the river at length.",
    ]);
  });

  test("a chunk closed for size hands its last sentences to the next as overlap", async () => {
    const doc = await parseText("o.txt", prose(10));
    const chunks = await chunkDocument(doc, recursive(30, 10));
    for (let i = 1; i < chunks.length; i++) {
      const previousLastSentence = chunks[i - 1].text.split(/(?<=\.) /).at(-1)!;
      expect(chunks[i].text.startsWith(previousLastSentence)).toBe(true);
      expect(chunks[i].metadata.overlap_tokens).toBe(9);
    }
    expect(chunks[0].metadata.overlap_tokens).toBe(0);
  });

  test("overlap never crosses into a new section", async () => {
    const doc = await parseText("s.md", `# A\n\n${prose(5)}\n\n# B\n\n${prose(2, "lake")}`);
    const chunks = await chunkDocument(doc, recursive(30, 10));
    const first = chunks.find((chunk) => chunk.section_hierarchy[0] === "B")!;
    expect(first.text.startsWith("B\n\nSentence number 1 talks about the lake")).toBe(true);
    expect(first.metadata.overlap_tokens).toBe(0);
  });

  test("a word run with no sentence breaks is cut between words, a giant word between characters", async () => {
    const words = Array.from({ length: 50 }, (_, i) => `w${i}`).join(" ");
    const chunks = await chunkDocument(await parseText("w.txt", words), recursive(20, 0));
    expect(chunks.map((chunk) => chunk.tokens)).toEqual([20, 20, 10]);
    const giant = await chunkDocument(await parseText("g.txt", "x".repeat(100)), { strategy: "recursive", chunkSize: 10, chunkOverlap: 0, countTokens: (text) => Math.ceil(text.length / 4) });
    expect(giant.map((chunk) => chunk.text.length)).toEqual([40, 40, 20]);
  });

  test("the same input gives the same chunks", async () => {
    const { filename, bytes } = await samplePdf();
    const doc = await parseDocument(filename, bytes);
    expect(await chunkDocument(doc, recursive(40, 8))).toEqual(await chunkDocument(doc, recursive(40, 8)));
  });

  test("char offsets point at the chunk's own text in documentText", async () => {
    const doc = await parseText("c.txt", [prose(7), prose(3, "lake")].join("\n\n"));
    const text = documentText(doc);
    for (const chunk of await chunkDocument(doc, recursive(25, 0))) {
      expect(text.slice(chunk.metadata.char_start, chunk.metadata.char_end).replace(/\s+/g, " ")).toBe(chunk.text.replace(/\s+/g, " "));
    }
  });
});

describe("recursive chunking of tables and code", () => {
  const bigTable = [["Code", "City", "Population"], ...Array.from({ length: 30 }, (_, i) => [`C${i}`, `City ${i}`, String(1000 + i)])];

  test("a table too big for one chunk is split between rows, repeating the header and caption", async () => {
    const bytes = await makePdf([[{ paragraph: "Cities and their size." }, { caption: "Table 9: Cities" }, { table: bigTable.slice(0, 25) }], [{ paragraph: "End of list." }]]);
    const doc = await parseDocument("cities.pdf", bytes);
    const chunks = (await chunkDocument(doc, recursive(60, 0))).filter((chunk) => chunk.chunk_type === "table");
    expect(chunks.length).toBeGreaterThan(1);
    let rows = 0;
    chunks.forEach((chunk, i) => {
      expect(chunk.tokens).toBeLessThanOrEqual(60);
      expect(chunk.text.startsWith("Table 9: Cities\n\n| Code | City | Population |\n| --- | --- | --- |\n")).toBe(true);
      expect(chunk.table_metadata?.columns).toBe(3);
      expect(chunk.metadata).toMatchObject({ table_part: i + 1, table_parts: chunks.length });
      rows += chunk.table_metadata!.rows - 1;
    });
    expect(rows).toBe(24);
  });

  test("a table that fits stays whole even when the prose around it is cut", async () => {
    const doc = await parseText("t.md", `${prose(6)}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n${prose(6, "lake")}`);
    const tables = (await chunkDocument(doc, recursive(20, 0))).filter((chunk) => chunk.chunk_type === "table");
    expect(tables.map((chunk) => chunk.text)).toEqual(["| a | b |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |"]);
  });

  test("a .py file gives code chunks cut at top-level blocks", async () => {
    const { filename, bytes } = samplePython();
    const doc = await parseDocument(filename, bytes);
    const chunks = await chunkDocument(doc, recursive(16, 0));
    expectWellFormed(chunks, 16);
    expect(chunks.every((chunk) => chunk.chunk_type === "code" && chunk.metadata.language === "python")).toBe(true);
    expect(chunks.map((chunk) => chunk.text.split("\n")[0])).toEqual(["import os", "class Loader:", 'if __name__ == "__main__":']);
    expect(chunks[0].text).toContain("def read_config(path):");
  });

  test("a function too big for a chunk is cut between lines, with lines as overlap", async () => {
    const body = Array.from({ length: 30 }, (_, i) => `    total = total + ${i}`).join("\n");
    const doc = await parseText("sum.py", `def add_all():\n    total = 0\n${body}\n    return total\n`);
    const chunks = await chunkDocument(doc, recursive(40, 5));
    expectWellFormed(chunks, 40);
    for (const chunk of chunks) for (const line of chunk.text.split("\n")) expect(line).toMatch(/^(def add_all\(\):|    (total = |return ).*)$/);
    expect(chunks[1].text.split("\n")[0]).toBe(chunks[0].text.split("\n").at(-1)!);
  });
});

describe("chunking options", () => {
  test("bad sizes and a semantic run without an embedder are refused", async () => {
    const doc = await parseText("x.txt", "Some text.");
    await expect(chunkDocument(doc, recursive(10, 10))).rejects.toBeInstanceOf(RangeError);
    await expect(chunkDocument(doc, recursive(0, 0))).rejects.toBeInstanceOf(RangeError);
    await expect(chunkDocument(doc, { strategy: "semantic", countTokens: countWords })).rejects.toBeInstanceOf(TypeError);
  });

  test("chunkSize and chunkOverlap default to 512 and 50", async () => {
    const doc = await parseText("d.txt", prose(120));
    const chunks = await chunkDocument(doc, { strategy: "recursive", countTokens: countWords });
    expect(Math.max(...chunks.map((chunk) => chunk.tokens))).toBeLessThanOrEqual(512);
    expect(chunks[0].tokens).toBeGreaterThan(500);
    expect(chunks[1].metadata.overlap_tokens).toBe(45);
  });
});
