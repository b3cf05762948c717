/**
 * Issue 53 formats end to end: real XLSX, CSV/TSV, PPTX, EML, MSG and EPUB files (written by
 * test/fixtures-gen) uploaded over HTTP, read back as chunks; versions and duplicates of them.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { zipSync } from "fflate";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeXlsx } from "../fixtures-gen/make-ooxml";
import { sampleCsv, sampleEml, sampleEpub, sampleMsg, samplePptx, sampleXlsx } from "../fixtures-gen/sample-formats";
import { startSieve, type TestSieve } from "../support/sieve";
import { DocumentsClient } from "./api-client";

// Uploads of a few hundred table rows are embedded for real: seconds on a busy 2-core machine.
setDefaultTimeout(60_000);

let sieve: TestSieve;
let api: DocumentsClient;

beforeAll(async () => {
  sieve = await startSieve();
  api = new DocumentsClient(sieve.url, await sieve.tenant("formats"));
});

afterAll(async () => {
  await sieve.close();
});

async function chunksOf(file: { filename: string; bytes: Uint8Array }, fields: Record<string, string | number> = {}) {
  const upload = await api.uploadCompleted(file.filename, file.bytes, fields);
  return { upload, chunks: await api.allChunks(upload.variant_id) };
}

const bodyRowsOf = (chunk: any) => chunk.text.split("\n").filter((line: string) => line.startsWith("| ") && !line.startsWith("| ---")).length - 1;

describe("spreadsheets", () => {
  test("XLSX: a section per sheet; a long sheet split by rows, the header in every piece, rows/columns true to each piece", async () => {
    const { upload, chunks } = await chunksOf(sampleXlsx(300), { chunk_size: 256, chunk_overlap: 0 });
    expect(upload).toMatchObject({ format: "xlsx", mime_type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", page_count: 1 });
    const sales = chunks.filter((chunk) => chunk.section_hierarchy[0] === "Sales");
    expect(sales.length).toBeGreaterThan(3);
    let rows = 0;
    for (const chunk of sales) {
      expect(chunk.chunk_type).toBe("table");
      expect(chunk.text).toContain("| Region | Quarter | Product | Units | Revenue |");
      expect(chunk.table_metadata).toMatchObject({ columns: 5, rows: bodyRowsOf(chunk) + 1 });
      expect(chunk.metadata.table_parts).toBe(sales.length);
      rows += chunk.table_metadata.rows - 1;
    }
    expect(rows).toBe(300);
    // Formulas show their cached values.
    expect(sales.some((chunk) => chunk.text.includes("| Region 6 | Q3 | Product line 6 | 16 | 192 |"))).toBe(true);

    const prices = chunks.filter((chunk) => chunk.section_hierarchy[0] === "Prices");
    expect(prices.map((chunk) => chunk.text).join("\n")).toContain("Price list 2025");
    const table = prices.find((chunk) => chunk.chunk_type === "table")!;
    expect(table.text).toContain("| Item | Unit price | Price with tax |\n| --- | --- | --- |\n| Gear | 3 | 3.6 |\n| Lever | 5 | 6 |");
    expect(table.table_metadata).toMatchObject({ rows: 3, columns: 3 });
  });

  test("CSV: quoted fields with the delimiter, quotes and ; detected; TSV by its extension", async () => {
    const { upload, chunks } = await chunksOf(sampleCsv(300), { chunk_size: 256, chunk_overlap: 0 });
    expect(upload).toMatchObject({ format: "csv", mime_type: "text/csv" });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((chunk) => chunk.text.startsWith("| city | country | population | note |"))).toBe(true);
    expect(chunks.reduce((sum, chunk) => sum + chunk.table_metadata.rows - 1, 0)).toBe(300);
    expect(chunks[0].text).toContain('| City 0 | Country 0 | 1000 | a note; with the delimiter, and "quotes" 0 |');

    const tsv = await chunksOf({ filename: "small.tsv", bytes: new TextEncoder().encode("name\tage\nAda\t36\nCharles\t79\n") });
    expect(tsv.upload.mime_type).toBe("text/tab-separated-values");
    expect(tsv.chunks).toHaveLength(1);
    expect(tsv.chunks[0]).toMatchObject({ chunk_type: "table", table_metadata: { rows: 3, columns: 2, headers: ["name", "age"] } });
  });

  test("an XLSX whose sheet inflates past the DOCX XML limit is refused like a DOCX bomb", async () => {
    // 20 MB of one repeated cell compresses to a few tens of KB.
    const row = '<row><c t="inlineStr"><is><t>bomb</t></is></c></row>';
    const sheet = `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${row.repeat(400_000)}</sheetData></worksheet>`;
    const good = (await import("fflate")).unzipSync(makeXlsx([{ name: "S", rows: [["a"]] }]));
    const bomb = zipSync({ ...good, "xl/worksheets/sheet1.xml": new TextEncoder().encode(sheet) }, { level: 9 });
    const response = await api.uploadFile("bomb.xlsx", bomb);
    const body: any = await response.json();
    expect({ status: response.status, code: body.code }).toEqual({ status: 422, code: "compression_ratio_too_high" });
    expect(body.detail).toMatch(/xl\/worksheets\/sheet1.xml .*--max-compression-ratio/);
  });
});

describe("slides", () => {
  test("PPTX: a page per slide, titles as sections, notes as their own chunks, tables as tables, no slide numbers", async () => {
    const { upload, chunks } = await chunksOf(samplePptx());
    expect(upload).toMatchObject({ format: "pptx", page_count: 3, cost: 3 });
    const roadmap = chunks.find((chunk) => chunk.text.includes("Ship semantic search"))!;
    expect(roadmap).toMatchObject({ page_number: 1, page_range: [1], section_hierarchy: ["Roadmap 2025"] });
    expect(roadmap.metadata.notes).toBeUndefined();
    const notes = chunks.find((chunk) => chunk.text.includes("Q3 date moved"))!;
    expect(notes).toMatchObject({ page_number: 1, section_hierarchy: ["Roadmap 2025", "Speaker notes"] });
    expect(notes.metadata.notes).toBe(true);
    expect(notes.text).not.toContain("Ship semantic search");
    const table = chunks.find((chunk) => chunk.chunk_type === "table")!;
    expect(table).toMatchObject({ page_number: 2, section_hierarchy: ["Team sizes"], table_metadata: { rows: 3, columns: 3, headers: ["Team", "Engineers", "Designers"] } });
    expect(chunks.find((chunk) => chunk.text.includes("without a title"))).toMatchObject({ page_number: 3, section_hierarchy: ["Slide 3"] });
    for (const chunk of chunks) {
      expect(chunk.page_range.length).toBe(1);
      expect(chunk.text.split("\n")).not.toContain("2"); // the slide-number placeholder
    }
  });
});

describe("e-mail", () => {
  for (const [kind, sample, mime] of [["EML", sampleEml, "message/rfc822"], ["MSG", sampleMsg, "application/vnd.ms-outlook"]] as const) {
    test(`${kind}: subject as section, headers and attachments as metadata on every chunk, the HTML body parsed`, async () => {
      const { upload, chunks } = await chunksOf(sample());
      expect(upload).toMatchObject({ format: "email", mime_type: mime });
      for (const chunk of chunks) {
        expect(chunk.section_hierarchy[0]).toBe("Analytical Engine — budget review");
        expect(chunk.metadata.email).toEqual({
          from: "Ada Lovelace <ada@example.org>",
          to: ["Charles Babbage <charles@example.org>"],
          cc: ["Mary Somerville <mary@example.org>"],
          date: "2024-03-05T10:15:00.000Z",
          subject: "Analytical Engine — budget review",
          attachments: [{ filename: "budget.csv", mime_type: "text/csv", size_bytes: 34 }],
        });
      }
      const all = chunks.map((chunk) => chunk.text).join("\n");
      expect(all).toContain("From: Ada Lovelace <ada@example.org>");
      expect(all).toContain("overran its budget by 17000 pounds");
      expect(all).not.toContain("<b>");
      expect(chunks.find((chunk) => chunk.text.includes("Gears from Clement"))!.section_hierarchy).toEqual(["Analytical Engine — budget review", "Budget"]);
      // The attachment is listed, not read.
      expect(all).not.toContain("gears,12000");
    });
  }
});

describe("e-books", () => {
  test("EPUB: spine order; chapter headings, or the table of contents' label, as sections", async () => {
    const { upload, chunks } = await chunksOf(sampleEpub());
    expect(upload).toMatchObject({ format: "epub", mime_type: "application/epub+zip" });
    expect(chunks.map((chunk) => chunk.section_hierarchy)).toEqual([["Departure"], ["The Storm"], ["The Storm", "Repairs"], ["Arrival"]]);
    expect(chunks[0].text).toContain("left the harbour at dawn");
    expect(chunks.every((chunk) => chunk.page_number === null)).toBe(true);
  });
});

describe("versions and duplicates work for the new formats", () => {
  test("a second slide deck version reuses the unchanged slides; the same workbook again is a duplicate", async () => {
    const deck = samplePptx();
    const first = await api.uploadCompleted(deck.filename, deck.bytes);
    const { makePptx } = await import("../fixtures-gen/make-ooxml");
    const edited = makePptx([
      { title: "Roadmap 2025", bullets: ["Ship semantic search to every workspace", "Chunking controls per upload"], notes: "Mention that the Q3 date moved because of the tokenizer work.", slideNumber: true },
      { title: "Team sizes", table: [["Team", "Engineers", "Designers"], ["Core", "6", "1"], ["Documents", "3", "0"]], slideNumber: true },
      { bullets: ["A slide without a title still gets a section of its own"], slideNumber: true },
    ]);
    const second = await api.uploadCompleted("roadmap-v2.pptx", edited, { parent_document_id: first.document_id });
    expect(second).toMatchObject({ version_number: 2, deduplication_available: true });
    const chunks = await api.allChunks(second.variant_id);
    expect(chunks.filter((chunk) => chunk.is_reused).length).toBe(chunks.length - 1);
    expect(chunks.find((chunk) => !chunk.is_reused)!.text).toContain("| Core | 6 | 1 |");

    const workbook = sampleXlsx(20);
    const original = await api.uploadCompleted(workbook.filename, workbook.bytes);
    const copy = await api.uploadCompleted("copy.xlsx", workbook.bytes);
    expect(copy).toMatchObject({ is_duplicate: true, canonical_document_id: original.document_id });
  });

  test("unsupported files still get a 415 listing what is supported", async () => {
    const response = await api.uploadFile("anim.gif", new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0]));
    expect(response.status).toBe(415);
    expect(((await response.json()) as any).detail).toMatch(/supported: PDF, DOCX, XLSX, PPTX, EPUB, EML, Outlook MSG, CSV\/TSV.*PNG\/JPEG\/TIFF images \(OCR\)/);
  });
});

describe("chunking controls", () => {
  test("max_tokens and overlap_tokens are chunk_size and chunk_overlap under the names RAG tools use", async () => {
    const csv = sampleCsv(120);
    const aliased = await api.uploadCompleted("aliased.csv", csv.bytes, { max_tokens: 128, overlap_tokens: 0 });
    expect(aliased).toMatchObject({ chunk_size: 128, chunk_overlap: 0 });
    const chunks = await api.allChunks(aliased.variant_id);
    expect(chunks.every((chunk) => chunk.tokens <= 128)).toBe(true);
    // The same configuration asked for by its other names is the same variant.
    const again = await api.post(`/api/documents/${aliased.document_id}/variants`, { chunk_size: 128, chunk_overlap: 0 });
    expect(again.status).toBe(200);
    expect(((await again.json()) as any).id).toBe(aliased.variant_id);

    const conflicting = await api.uploadFile("conflict.csv", csv.bytes, { chunk_size: 256, max_tokens: 128 });
    expect(conflicting.status).toBe(400);
    expect(((await conflicting.json()) as any).detail).toMatch(/^max_tokens: .*chunk_size/);
  });
});

describe("contextual prefix", () => {
  const manual = (section: string, title = "Pump manual") => `# ${title}\n\n## ${section}\n\nClose the inlet valve before opening the housing of the pump.\n\n## Storage\n\nKeep the pump dry and above freezing.\n`;

  test("the section path goes in front of the embedded text only, says so in metadata, and is its own variant", async () => {
    const upload = await api.uploadCompleted("pump.md", manual("Maintenance"), { contextual_prefix: "true" });
    expect(upload.contextual_prefix).toBe(true);
    const chunks = await api.allChunks(upload.variant_id);
    const maintenance = chunks.find((chunk) => chunk.text.includes("inlet valve"))!;
    expect(maintenance.metadata.embedded_text_prefix).toBe("pump › Pump manual › Maintenance");
    expect(maintenance.text).not.toContain("pump › ");

    const plain = await api.post(`/api/documents/${upload.document_id}/variants`, { contextual_prefix: false });
    expect(plain.status).toBe(201);
    const plainVariant: any = await plain.json();
    expect(plainVariant.contextual_prefix).toBe(false);
    await api.waitForVariant(plainVariant.id);
    expect((await api.allChunks(plainVariant.id)).every((chunk) => chunk.metadata.embedded_text_prefix === undefined)).toBe(true);
  });

  test("a reused chunk whose section was renamed is embedded again, since its prefix changed", async () => {
    const first = await api.uploadCompleted("pump2.md", manual("Maintenance", "Pump handbook"), { contextual_prefix: "true" });
    const second = await api.uploadCompleted("pump2.md", manual("Servicing", "Pump handbook"), { contextual_prefix: "true", parent_document_id: first.document_id });
    const chunks = await api.allChunks(second.variant_id);
    const renamed = chunks.find((chunk) => chunk.text.includes("inlet valve"))!;
    const unchanged = chunks.find((chunk) => chunk.text.includes("above freezing"))!;
    expect(renamed.metadata.embedded_text_prefix).toBe("pump2 › Pump handbook › Servicing");
    expect(unchanged).toMatchObject({ is_reused: true, metadata: { embedding_source: "copied" } });
    expect(renamed.metadata.embedding_source).toBe("computed");
  });
});

describe("table_inline_max_tokens: a small table kept with the text around it", () => {
  const REAL = join(import.meta.dir, "../fixtures/real");
  const querystringDocx = new Uint8Array(readFileSync(join(REAL, "nodejs-querystring.docx")));
  const querystringHtml = readFileSync(join(REAL, "nodejs-querystring.html"), "utf8");
  const historyOf = (chunks: any[]) => chunks.filter((chunk) => chunk.text.includes("| v8.0.0 |"));
  // A workspace per test: the same bytes in one workspace would be an exact duplicate, not processed again.
  let workspaces = 0;
  const freshClient = async () => new DocumentsClient(sieve.url, await sieve.tenant(`inline-tables-${++workspaces}`));
  const chunksIn = async (client: DocumentsClient, filename: string, bytes: Uint8Array, fields: Record<string, string | number> = {}) => {
    const upload = await client.uploadCompleted(filename, bytes, fields);
    return { upload, chunks: await client.allChunks(upload.variant_id) };
  };

  test("by default the History table of a real DOCX (LibreOffice) is a table chunk of its own", async () => {
    const { upload, chunks } = await chunksIn(await freshClient(), "querystring.docx", querystringDocx);
    expect(upload.table_inline_max_tokens).toBe(0);
    const [history] = historyOf(chunks);
    expect(history).toMatchObject({ chunk_type: "table", contains_table: true, table_metadata: { rows: 5, columns: 2, headers: ["Version", "Changes"] } });
    expect(history.text).not.toContain("The URL query string to parse");
    expect(history.metadata.inline_tables).toBeUndefined();
  });

  test("multipart: at or under the limit the table stays in the text chunk, whose metadata says it holds that table", async () => {
    const { upload, chunks } = await chunksIn(await freshClient(), "querystring.docx", querystringDocx, { table_inline_max_tokens: 200 });
    expect(upload.table_inline_max_tokens).toBe(200);
    expect(chunks.every((chunk) => chunk.chunk_type !== "table")).toBe(true);
    const [history] = historyOf(chunks);
    expect(history).toMatchObject({ chunk_type: "text", contains_table: true, table_metadata: { rows: 5, columns: 2, headers: ["Version", "Changes"] } });
    expect(history.metadata.inline_tables).toEqual([history.table_metadata]);
    // The text after the table (the parameter list of querystring.parse) is in the same chunk, and the whole table is there.
    expect(history.text).toContain("The URL query string to parse");
    expect(history.text).toContain("| v0.1.25 | Added in: v0.1.25 |");
    expect(history.section_hierarchy.at(-1)).toBe("querystring.parse(str[, sep[, eq[, options]]])");
    // Chunks without a table say so.
    expect(chunks.filter((chunk) => chunk.contains_table)).toEqual([history]);
    expect(chunks.filter((chunk) => !chunk.contains_table).every((chunk) => chunk.table_metadata === null)).toBe(true);
  });

  test("a table over the limit stays a table chunk; the limit is part of the variant's configuration", async () => {
    const api = await freshClient();
    const tight = await chunksIn(api, "querystring.docx", querystringDocx, { table_inline_max_tokens: 20 });
    expect(historyOf(tight.chunks)[0].chunk_type).toBe("table");
    const other = await api.post(`/api/documents/${tight.upload.document_id}/variants`, { table_inline_max_tokens: 300 });
    expect(other.status).toBe(201);
    const variant: any = await other.json();
    expect(variant.table_inline_max_tokens).toBe(300);
    await api.waitForVariant(variant.id);
    expect(historyOf(await api.allChunks(variant.id))[0]).toMatchObject({ chunk_type: "text", contains_table: true });
    const again = await api.post(`/api/documents/${tight.upload.document_id}/variants`, { table_inline_max_tokens: 300 });
    expect(again.status).toBe(200);
  });

  test("JSON upload of the real HTML page, then a new version: the inline table chunk is reused as is", async () => {
    const api = await freshClient();
    const first = await api.uploadJson({ filename: "querystring.html", text: querystringHtml, table_inline_max_tokens: 200 });
    expect(first.status === 201 || first.status === 202).toBe(true);
    const v1: any = await first.json();
    await api.waitForVariant(v1.variant_id);
    const v1History = historyOf(await api.allChunks(v1.variant_id))[0];
    expect(v1History).toMatchObject({ chunk_type: "text", contains_table: true, table_metadata: { rows: 5, columns: 2 } });

    const edited = querystringHtml.replace("The <code>node:querystring</code> module provides utilities", "The <code>node:querystring</code> module (legacy) provides utilities");
    expect(edited).not.toBe(querystringHtml);
    const second = await api.uploadJson({ filename: "querystring.html", text: edited, table_inline_max_tokens: 200, parent_document_id: v1.document_id });
    const v2: any = await second.json();
    expect(v2).toMatchObject({ version_number: 2, table_inline_max_tokens: 200, deduplication_available: true });
    await api.waitForVariant(v2.variant_id);
    const v2History = historyOf(await api.allChunks(v2.variant_id))[0];
    expect(v2History).toMatchObject({ text: v1History.text, contains_table: true, is_reused: true, dedup_strategy: "exact", metadata: { embedding_source: "copied" } });
  });

  test("bad values are a 400 naming the field, and nothing is stored", async () => {
    const before = (await api.getJson("/api/documents?limit=1")).total;
    for (const [fields, message] of [
      [{ table_inline_max_tokens: "-1" }, "table_inline_max_tokens"],
      [{ table_inline_max_tokens: "1e3" }, "table_inline_max_tokens"],
      [{ chunk_size: 128, table_inline_max_tokens: 200 }, "table_inline_max_tokens: must not exceed chunk_size (128)"],
    ] as const) {
      const response = await api.uploadFile("bad.docx", querystringDocx, fields);
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).detail).toContain(message);
    }
    const json = await api.uploadJson({ filename: "bad.html", text: querystringHtml, table_inline_max_tokens: true });
    expect(json.status).toBe(400);
    expect(((await json.json()) as any).detail).toContain("table_inline_max_tokens");
    expect((await api.getJson("/api/documents?limit=1")).total).toBe(before);
  });
});
