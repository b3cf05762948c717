import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makePdf } from "../fixtures-gen/make-pdf";
import { PRICE_TABLE, SAMPLE_TABLE, sampleDocx, sampleHtml, sampleMarkdown, samplePdf, samplePython, STOCK_TABLE } from "../fixtures-gen/sample-documents";
import { startSieve, type TestSieve } from "../support/sieve";
import { DocumentsClient } from "./api-client";
import { longMarkdown } from "./documents-gen";

let sieve: TestSieve;
let api: DocumentsClient;

beforeAll(async () => {
  sieve = await startSieve();
  api = new DocumentsClient(sieve.url, await sieve.tenant("uploads"));
});

afterAll(async () => {
  await sieve.close();
});

/** Every field of spec §2.1 with its JSON type. */
function expectChunkShape(chunk: any) {
  expect(Object.keys(chunk)).toEqual([
    "id", "text", "page_number", "page_range", "section_hierarchy", "tokens", "chunk_index", "metadata", "chunk_type", "contains_table",
    "table_metadata", "chunking_strategy", "section_number", "quality_score", "synthetic_context", "parent_chunk_id", "bounding_box",
    "dedup_strategy", "dedup_confidence", "is_reused", "dedup_source_chunk_id", "total_sentences", "reused_sentences_count",
    "new_sentences_count", "content_reuse_ratio", "embedding_recommendation", "recommendation_confidence", "dedup_metadata",
  ]);
  expect(typeof chunk.id).toBe("string");
  expect(chunk.text.length).toBeGreaterThan(0);
  expect(Number.isInteger(chunk.tokens) && chunk.tokens > 0).toBe(true);
  expect(["text", "table", "code", "image"]).toContain(chunk.chunk_type);
  expect(chunk.contains_table).toBe(chunk.table_metadata !== null);
  expect(chunk.quality_score).toBeGreaterThanOrEqual(0);
  expect(chunk.quality_score).toBeLessThanOrEqual(1);
  expect(chunk.bounding_box).toBeNull();
  expect(Array.isArray(chunk.page_range) && Array.isArray(chunk.section_hierarchy)).toBe(true);
}

const chunkWith = (chunks: any[], text: string) => {
  const found = chunks.find((chunk) => chunk.text.includes(text));
  if (!found) throw new Error(`no chunk contains ${JSON.stringify(text)}`);
  return found;
};

describe("upload → chunks, per format", () => {
  test("multi-page PDF: real page numbers, numbered sections, a table with its metadata; cost = pages", async () => {
    const { filename, bytes } = await samplePdf();
    const response = await api.uploadFile(filename, bytes);
    expect(response.status).toBe(201);
    const upload: any = await response.json();
    expect(upload).toMatchObject({
      is_duplicate: false,
      deduplication_available: false,
      status: "completed",
      page_count: 3,
      cost: 3,
      format: "pdf",
      mime_type: "application/pdf",
      file_size_bytes: bytes.length,
      chunking_strategy: "recursive",
      version_number: 1,
    });
    expect(upload.content_hash).toBe(new Bun.CryptoHasher("sha256").update(bytes).digest("hex"));
    const chunks = await api.allChunks(upload.variant_id);
    expect(upload.chunks_count).toBe(chunks.length);
    chunks.forEach((chunk, i) => {
      expectChunkShape(chunk);
      expect(chunk.chunk_index).toBe(i);
      expect(chunk.page_number).toBe(chunk.page_range[0]);
      expect(chunk).toMatchObject({ chunking_strategy: "recursive", dedup_strategy: "new", is_reused: false, dedup_metadata: null, parent_chunk_id: null });
      expect(chunk.new_sentences_count).toBe(chunk.total_sentences);
    });
    expect(chunkWith(chunks, "sampling campaign")).toMatchObject({ page_number: 1, page_range: [1], section_hierarchy: ["1 Introduction"], section_number: "1" });
    expect(chunkWith(chunks, "Earlier surveys")).toMatchObject({ section_hierarchy: ["1 Introduction", "1.1 Background"], section_number: "1.1" });
    expect(chunkWith(chunks, "The scope covers")).toMatchObject({ page_number: 2, section_hierarchy: ["2 Methods", "2.1 Scope"], section_number: "2.1" });
    // Section 2.1 runs from page 2 onto page 3.
    expect(chunkWith(chunks, "Samples that leaked").page_range).toContain(3);
    expect(chunkWith(chunks, "Spring samples")).toMatchObject({ page_number: 3, section_number: "2.2" });
    const table = chunks.find((chunk) => chunk.chunk_type === "table");
    expect(table).toMatchObject({ contains_table: true, page_number: 2, section_number: "2.1" });
    expect(table.table_metadata).toMatchObject({ rows: SAMPLE_TABLE.length, columns: SAMPLE_TABLE[0].length, headers: SAMPLE_TABLE[0] });
  });

  test("DOCX: heading styles become sections; tables carry rows/columns/headers; an orphan table gets synthetic context", async () => {
    const { filename, bytes } = await sampleDocx();
    const upload = await api.uploadCompleted(filename, bytes);
    const chunks = await api.allChunks(upload.variant_id);
    chunks.forEach(expectChunkShape);
    for (const chunk of chunks) expect(chunk).toMatchObject({ page_number: null, page_range: [] });
    const [prices, stock] = chunks.filter((chunk) => chunk.chunk_type === "table");
    expect(prices).toMatchObject({ section_hierarchy: ["1 Overview", "1.1 Prices"], section_number: "1.1", synthetic_context: null });
    expect(prices.table_metadata).toMatchObject({ rows: PRICE_TABLE.length, columns: 3, headers: PRICE_TABLE[0] });
    expect(stock.section_hierarchy).toEqual(["2 Logistics", "2.1 Stock"]);
    expect(stock.table_metadata).toMatchObject({ rows: STOCK_TABLE.length, columns: 2 });
    expect(stock.synthetic_context).toContain("2.1 Stock");
  });

  test("HTML: headings, a table with a header row, a code block; scripts and navigation are not text", async () => {
    const { filename, bytes } = sampleHtml();
    const upload = await api.uploadCompleted(filename, bytes);
    const chunks = await api.allChunks(upload.variant_id);
    chunks.forEach(expectChunkShape);
    const all = chunks.map((chunk) => chunk.text).join("\n");
    expect(all).not.toContain("not text");
    expect(chunkWith(chunks, "Install the tool")).toMatchObject({ section_hierarchy: ["1 Getting started"], section_number: "1" });
    const table = chunks.find((chunk) => chunk.chunk_type === "table");
    expect(table.table_metadata).toMatchObject({ rows: 3, columns: 2, headers: ["Flag", "Meaning"] });
    expect(table.section_hierarchy).toEqual(["1 Getting started", "1.1 Options"]);
  });

  test("Markdown as JSON base64: pipe table metadata and section numbers", async () => {
    const { filename, bytes } = sampleMarkdown();
    const response = await api.uploadJson({ filename, content_base64: Buffer.from(bytes).toString("base64") });
    expect(response.status).toBe(201);
    const upload: any = await response.json();
    expect(upload).toMatchObject({ format: "markdown", mime_type: "text/markdown", page_count: 1 });
    const chunks = await api.allChunks(upload.variant_id);
    const table = chunks.find((chunk) => chunk.chunk_type === "table");
    expect(table).toMatchObject({ section_number: "1.1", table_metadata: { rows: 3, columns: 3, headers: ["Key", "Default", "Meaning"] } });
  });

  test("source code as JSON text: chunk_type code", async () => {
    const { filename, bytes } = samplePython();
    const response = await api.uploadJson({ filename, text: new TextDecoder().decode(bytes) });
    expect(response.status).toBe(201);
    const upload: any = await response.json();
    expect(upload.format).toBe("code");
    const chunks = await api.allChunks(upload.variant_id);
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) expect(chunk.chunk_type).toBe("code");
    expect(chunks.map((chunk) => chunk.text).join("\n")).toContain("def read_config(path):");
  });

  test("numbered headings in a PDF without heading styles still give section numbers", async () => {
    const bytes = await makePdf([
      [{ heading: "4 Storage", level: 1 }, { paragraph: "Everything is kept in one database file that the operator backs up nightly." }],
      [{ heading: "4.3.1 Retention", level: 3 }, { paragraph: "Records older than a year are removed by a weekly task." }],
    ]);
    const upload = await api.uploadCompleted("storage.pdf", bytes);
    const chunks = await api.allChunks(upload.variant_id);
    expect(chunkWith(chunks, "weekly task")).toMatchObject({ page_number: 2, section_number: "4.3.1" });
  });

  test("paging: pages of 7 add up to the whole variant in chunk_index order; offset past the end is an empty page", async () => {
    const upload = await api.uploadCompleted("long.md", longMarkdown(1, 14), { chunk_size: 64 });
    const whole = await api.getJson(`/api/documents/variants/${upload.variant_id}/chunks?limit=1000`);
    expect(whole.total).toBeGreaterThan(20);
    expect(whole).toMatchObject({ limit: 1000, offset: 0 });
    const paged = await api.allChunks(upload.variant_id, 7);
    expect(paged.map((chunk) => chunk.id)).toEqual(whole.chunks.map((chunk: any) => chunk.id));
    expect(paged.map((chunk) => chunk.chunk_index)).toEqual(paged.map((_, i) => i));
    const defaults = await api.getJson(`/api/documents/variants/${upload.variant_id}/chunks`);
    expect(defaults).toMatchObject({ limit: 100, offset: 0, total: whole.total });
    const past = await api.getJson(`/api/documents/variants/${upload.variant_id}/chunks?offset=${whole.total + 5}`);
    expect(past).toMatchObject({ chunks: [], total: whole.total, offset: whole.total + 5 });
    for (const chunk of whole.chunks) expect(chunk.tokens).toBeLessThanOrEqual(64);
  });

  test("include_full_metadata=true fills dedup_metadata", async () => {
    const { filename, bytes } = sampleMarkdown();
    const upload = await api.uploadCompleted(`meta-${filename}`, new Uint8Array([...bytes, 10]));
    const [chunk] = (await api.getJson(`/api/documents/variants/${upload.variant_id}/chunks?limit=1&include_full_metadata=true`)).chunks;
    expect(chunk.dedup_metadata).toMatchObject({ rule: "no_parent", matched_parent_chunks: [] });
    const [plain] = (await api.getJson(`/api/documents/variants/${upload.variant_id}/chunks?limit=1&include_full_metadata=false`)).chunks;
    expect(plain.dedup_metadata).toBeNull();
  });

  test("semantic strategy, and a second variant of the same version with another configuration", async () => {
    const text = longMarkdown(2, 12);
    const upload = await api.uploadCompleted("topics.md", text, { chunking_strategy: "semantic", chunk_size: 200 });
    const semantic = await api.allChunks(upload.variant_id);
    for (const chunk of semantic) expect(chunk.chunking_strategy).toBe("semantic");

    const created = await api.post(`/api/documents/${upload.document_id}/variants`, { chunking_strategy: "recursive", chunk_size: 48, chunk_overlap: 0 });
    expect(created.status).toBe(201);
    const variant: any = await created.json();
    expect(variant).toMatchObject({ document_id: upload.document_id, version_id: upload.version_id, chunking_strategy: "recursive", chunk_size: 48, chunk_overlap: 0 });
    const done = await api.waitForVariant(variant.id);
    expect(done.chunks_count).toBeGreaterThan(semantic.length);
    const again = await api.post(`/api/documents/${upload.document_id}/variants`, { chunking_strategy: "recursive", chunk_size: 48, chunk_overlap: 0 });
    expect(again.status).toBe(200);
    expect(((await again.json()) as any).id).toBe(variant.id);

    const record = await api.getJson(`/api/documents/${upload.document_id}`);
    expect(record.variants.map((v: any) => v.id)).toEqual([upload.variant_id, variant.id]);
    expect(record.status).toBe("completed");
  });

  test("document record and list", async () => {
    const upload = await api.uploadCompleted("record.txt", "A plain text file. It has two sentences.");
    const record = await api.getJson(`/api/documents/${upload.document_id}`);
    expect(record).toMatchObject({
      id: upload.document_id,
      filename: "record.txt",
      content_hash: upload.content_hash,
      file_size_bytes: 40,
      mime_type: "text/plain",
      page_count: 1,
      status: "completed",
      is_canonical: true,
      canonical_document_id: null,
      parent_document_id: null,
      version_id: upload.version_id,
      latest_version_id: upload.version_id,
    });
    expect(new Date(record.created_at).toISOString()).toBe(record.created_at);
    expect(record.variants[0]).toMatchObject({ id: upload.variant_id, status: "completed", chunks_count: 1, embeddings_computed: 1, embeddings_reused: 0 });

    const list = await api.getJson("/api/documents?limit=2");
    expect(list.documents.map((d: any) => d.id)[0]).toBe(upload.document_id); // newest first
    expect(list).toMatchObject({ limit: 2, offset: 0 });
    expect(list.documents.length).toBe(2);
    const rest = await api.getJson(`/api/documents?limit=1000&offset=2`);
    expect(rest.documents.length).toBe(list.total - 2);
  });
});
