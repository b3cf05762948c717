/**
 * Version-aware dedup end to end (issue 8): real uploads of generated version pairs with known
 * edits, read back through the chunks and dedup-summary endpoints.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ProseGenerator } from "../dedup/fixtures/prose";
import { startSieve, type TestSieve } from "../support/sieve";
import { DocumentsClient } from "./api-client";
import { makeSections, renderMarkdown, type Section } from "./documents-gen";
import { makePdf, type PdfElement } from "../fixtures-gen/make-pdf";

let sieve: TestSieve;
let api: DocumentsClient;

beforeAll(async () => {
  sieve = await startSieve();
  api = new DocumentsClient(sieve.url, await sieve.tenant("versions"));
});

afterAll(async () => {
  await sieve.close();
});

/** One section per chunk: sections always start a chunk, and 256 tokens hold a whole section. */
const SECTION_CHUNKS = { chunk_size: 256, chunk_overlap: 0 };

type Pair = { parent: any; child: any; parentChunks: any[]; childChunks: any[]; summary: any };

let fileNumber = 0;
async function versionPair(before: string, after: string, fields: Record<string, string | number> = SECTION_CHUNKS): Promise<Pair> {
  fileNumber++;
  const parent = await api.uploadCompleted(`doc-${fileNumber}.md`, before, fields);
  const child = await api.uploadCompleted(`doc-${fileNumber}-v2.md`, after, { ...fields, parent_document_id: parent.document_id });
  expect(child).toMatchObject({ is_duplicate: false, deduplication_available: true, parent_version_id: parent.version_id, version_number: 2 });
  const parentChunks = await api.allChunks(parent.variant_id);
  const childChunks = await api.allChunks(child.variant_id, 100, true);
  const summary = await api.getJson(`/api/documents/variants/${child.variant_id}/dedup-summary`);
  return { parent, child, parentChunks, childChunks, summary };
}

const strategies = (chunks: any[]) => chunks.map((chunk) => chunk.dedup_strategy);

/** Stored vector bytes of a chunk. */
async function vectorOf(chunkId: string): Promise<Uint8Array> {
  const [row] = await sieve.ctx.database.all<{ embedding: Uint8Array }>(
    "select e.embedding as embedding from document_chunks c join chunk_embeddings e on e.chunk_seq = c.seq where c.id = $id",
    { id: chunkId },
  );
  if (!row) throw new Error(`no vector for chunk ${chunkId}`);
  return row.embedding;
}

function expectSummaryMatchesChunks(pair: Pair) {
  const { summary, childChunks, parent, child } = pair;
  const exact = childChunks.filter((chunk) => chunk.is_reused).length;
  expect(summary).toMatchObject({
    variant_id: child.variant_id,
    total_chunks: childChunks.length,
    total_sentences: childChunks.reduce((sum, chunk) => sum + chunk.total_sentences, 0),
    reused_sentences: childChunks.reduce((sum, chunk) => sum + chunk.reused_sentences_count, 0),
    parent_version_id: parent.version_id,
    has_parent: true,
    embeddings_reused: exact,
    embeddings_computed: childChunks.length - exact,
  });
  expect(summary.new_sentences).toBe(summary.total_sentences - summary.reused_sentences);
  expect(summary.sentence_reuse_ratio).toBeCloseTo(summary.reused_sentences / summary.total_sentences, 10);
  for (const strategy of ["exact", "high_reuse", "partial_reuse", "mixed_content", "fuzzy", "new"]) {
    expect(summary.chunk_breakdown[strategy]).toBe(childChunks.filter((chunk) => chunk.dedup_strategy === strategy).length);
  }
  for (const recommendation of ["reuse", "consider_reuse", "regenerate"]) {
    expect(summary.embedding_recommendations[recommendation]).toBe(childChunks.filter((chunk) => chunk.embedding_recommendation === recommendation).length);
  }
  for (const chunk of childChunks) {
    expect(chunk.metadata.embedding_source).toBe(chunk.is_reused ? "copied" : "computed");
    expect(chunk.dedup_metadata).not.toBeNull();
  }
}

function withSentence(sections: Section[], at: number, paragraph: number, sentence: number, replacement: string): Section[] {
  return sections.map((section, i) =>
    i !== at ? section : { ...section, paragraphs: section.paragraphs.map((p, k) => (k !== paragraph ? p : p.map((s, j) => (j === sentence ? replacement : s)))) },
  );
}

describe("a version is deduplicated against its parent", () => {
  test("unchanged text (different bytes): every chunk exact, its parent's vector copied, nothing embedded", async () => {
    const sections = makeSections(new ProseGenerator(101), 6);
    const text = renderMarkdown(sections);
    const pair = await versionPair(text, `${text}\n\n`);
    expect(strategies(pair.childChunks)).toEqual(pair.parentChunks.map(() => "exact"));
    for (const [i, chunk] of pair.childChunks.entries()) {
      expect(chunk).toMatchObject({
        is_reused: true,
        dedup_confidence: 1,
        dedup_source_chunk_id: pair.parentChunks[i].id,
        content_reuse_ratio: 1,
        new_sentences_count: 0,
        embedding_recommendation: "reuse",
        recommendation_confidence: "high",
      });
      expect(await vectorOf(chunk.id)).toEqual(await vectorOf(pair.parentChunks[i].id));
    }
    expectSummaryMatchesChunks(pair);
    expect(pair.summary).toMatchObject({ embeddings_computed: 0, embeddings_reused: pair.childChunks.length, sentence_reuse_ratio: 1 });
  });

  test("one sentence changed in every chunk: high_reuse from the same parent chunk, embedded afresh", async () => {
    const gen = new ProseGenerator(102);
    const sections = makeSections(gen, 6);
    let edited = sections;
    for (let i = 0; i < sections.length; i++) edited = withSentence(edited, i, 1, 2, gen.sentence());
    const pair = await versionPair(renderMarkdown(sections), renderMarkdown(edited));
    expect(strategies(pair.childChunks)).toEqual(sections.map(() => "high_reuse"));
    pair.childChunks.forEach((chunk, i) => {
      expect(chunk).toMatchObject({ is_reused: false, dedup_source_chunk_id: pair.parentChunks[i].id, new_sentences_count: 1 });
      expect(chunk.reused_sentences_count).toBe(chunk.total_sentences - 1);
      expect(chunk.dedup_confidence).toBeCloseTo(chunk.content_reuse_ratio, 10);
      expect(chunk.dedup_metadata.matched_parent_chunks[0].chunk_id).toBe(pair.parentChunks[i].id);
    });
    expectSummaryMatchesChunks(pair);
    expect(pair.summary.embeddings_computed).toBe(sections.length);
  });

  test("a paragraph moved to another section: the section it left is high_reuse, the one it joined mixed_content, the rest exact", async () => {
    const sections = makeSections(new ProseGenerator(103), 7);
    const moved = sections[1].paragraphs[1];
    const edited = sections.map((section, i) =>
      i === 1 ? { ...section, paragraphs: [section.paragraphs[0]] } : i === 5 ? { ...section, paragraphs: [...section.paragraphs, moved] } : section,
    );
    const pair = await versionPair(renderMarkdown(sections), renderMarkdown(edited));
    expect(strategies(pair.childChunks)).toEqual(["exact", "high_reuse", "exact", "exact", "exact", "mixed_content", "exact"]);
    expect(pair.summary.reused_sentences).toBe(pair.summary.total_sentences);
    expect(pair.childChunks[5].dedup_metadata.structure.source_blocks).toBeGreaterThanOrEqual(2);
    expectSummaryMatchesChunks(pair);
    expect(pair.summary).toMatchObject({ embeddings_reused: 5, embeddings_computed: 2 });
  });

  test("a paragraph inserted at the top of a long text shifts every boundary; ≥ 95% of sentences still count as reused", async () => {
    const gen = new ProseGenerator(104);
    const paragraphs = Array.from({ length: 48 }, () => gen.proseParagraph(4).sentences.join(" "));
    const inserted = gen.proseParagraph(4).sentences.join(" ");
    const fields = { chunk_size: 120, chunk_overlap: 20 };
    const pair = await versionPair(paragraphs.join("\n\n"), [inserted, ...paragraphs].join("\n\n"), fields);
    expect(pair.childChunks.length).toBeGreaterThan(20);
    expect(pair.summary.sentence_reuse_ratio).toBeGreaterThanOrEqual(0.95);
    const reusedChunks = pair.childChunks.filter((chunk) => ["exact", "high_reuse"].includes(chunk.dedup_strategy)).length;
    expect(reusedChunks / pair.childChunks.length).toBeGreaterThanOrEqual(0.8);
    expect(pair.childChunks[0].dedup_strategy).not.toBe("exact");
    expectSummaryMatchesChunks(pair);
  });

  test("a rewritten section comes out new and is embedded; the untouched sections are exact and copied", async () => {
    const gen = new ProseGenerator(105);
    const sections = makeSections(gen, 6);
    const edited = sections.map((section, i) => (i === 3 ? { ...section, paragraphs: section.paragraphs.map((p) => p.map(() => gen.sentence())) } : section));
    const pair = await versionPair(renderMarkdown(sections), renderMarkdown(edited));
    expect(strategies(pair.childChunks)).toEqual(["exact", "exact", "exact", "new", "exact", "exact"]);
    expect(pair.childChunks[3]).toMatchObject({ is_reused: false, embedding_recommendation: "regenerate", dedup_source_chunk_id: null });
    expectSummaryMatchesChunks(pair);
    expect(pair.summary).toMatchObject({ embeddings_computed: 1, embeddings_reused: 5 });
  });

  test("an entirely new document: every chunk new, has_parent still true", async () => {
    const gen = new ProseGenerator(106);
    const pair = await versionPair(renderMarkdown(makeSections(gen, 4, "Part")), renderMarkdown(makeSections(gen, 4, "Chapter")));
    expect(new Set(strategies(pair.childChunks))).toEqual(new Set(["new"]));
    expect(pair.summary).toMatchObject({ reused_sentences: 0, sentence_reuse_ratio: 0, has_parent: true, embeddings_reused: 0 });
    expectSummaryMatchesChunks(pair);
  });

  test("a PDF manual with a paragraph inserted on its first page: ≥ 90% of sentences reused, ≥ 70% of chunks exact or high_reuse", async () => {
    const gen = new ProseGenerator(109);
    const pages = Array.from({ length: 12 }, (_, i) => ({ heading: `${i + 1} Topic ${i + 1}`, paragraphs: [gen.proseParagraph(4).sentences, gen.proseParagraph(4).sentences] }));
    const render = (inserted: string[] | null) =>
      makePdf(
        pages.map((page, i): PdfElement[] => [
          { heading: page.heading, level: 1 },
          ...(i === 0 && inserted ? [{ paragraph: inserted.join(" ") }] : []),
          ...page.paragraphs.map((sentences) => ({ paragraph: sentences.join(" ") })),
        ]),
        { outline: true },
      );
    const fields = { chunk_size: 120, chunk_overlap: 20 };
    const parent = await api.uploadCompleted("manual.pdf", await render(null), fields);
    const child = await api.uploadCompleted("manual-v2.pdf", await render(gen.proseParagraph(3).sentences), { ...fields, parent_document_id: parent.document_id });
    const childChunks = await api.allChunks(child.variant_id, 100, true);
    const summary = await api.getJson(`/api/documents/variants/${child.variant_id}/dedup-summary`);
    expect(summary.sentence_reuse_ratio).toBeGreaterThanOrEqual(0.9);
    const reused = childChunks.filter((chunk) => ["exact", "high_reuse"].includes(chunk.dedup_strategy)).length;
    expect(reused / childChunks.length).toBeGreaterThanOrEqual(0.7);
    expect(childChunks.every((chunk) => chunk.section_hierarchy.length === 1 && chunk.page_number !== null)).toBe(true);
  });

  test("a version on the same topic with no text in common: regenerated, however close the embeddings", async () => {
    const gen = new ProseGenerator(108);
    const sections = makeSections(gen, 8);
    // Every sentence's words reversed: the same words (so mean-pooled embeddings stay close),
    // but no sentence and almost no word 3-shingle in common.
    const reversed = sections.map((section) => ({
      ...section,
      heading: `${section.heading} revisited`,
      paragraphs: section.paragraphs.map((p) => p.map((sentence) => `${sentence.replace(/[.?!]$/, "").split(" ").reverse().join(" ")}.`)),
    }));
    const pair = await versionPair(renderMarkdown(sections), renderMarkdown(reversed));
    const cosines = pair.childChunks.map((chunk) => chunk.dedup_metadata.similarity.embedding_cosine ?? 0);
    // The case this guards: embeddings alone would call these chunks near-duplicates.
    expect(cosines.filter((cosine) => cosine >= 0.9).length).toBeGreaterThan(0);
    const regenerated = pair.childChunks.filter((chunk) => chunk.embedding_recommendation === "regenerate").length;
    expect(regenerated / pair.childChunks.length).toBeGreaterThanOrEqual(0.8);
    for (const chunk of pair.childChunks) {
      if (chunk.content_reuse_ratio < 0.3 && (chunk.dedup_metadata.similarity.minhash_jaccard ?? 0) < 0.5) expect(chunk.embedding_recommendation).toBe("regenerate");
    }
    expectSummaryMatchesChunks(pair);
  });

  test("text the encoder cannot read is never a near-duplicate by embedding: two unrelated Thai versions come out new", async () => {
    // MiniLM has no pieces for Thai letters: every such chunk embeds to almost the same vector.
    const before = "# ประวัติ\n\nหอไอเฟลสร้างขึ้นในปีพ.ศ. ๒๔๓๒ สำหรับงานนิทรรศการโลก และเคยเป็นสิ่งก่อสร้างที่สูงที่สุดในโลก\n\n# การเดินทาง\n\nนักท่องเที่ยวสามารถขึ้นลิฟต์ไปยังชั้นบนสุดได้ตลอดทั้งปี";
    const after = "# อาหาร\n\nต้มยำกุ้งเป็นอาหารไทยที่มีรสเปรี้ยวและเผ็ด ใช้ตะไคร้ ข่า และใบมะกรูดเป็นส่วนผสมหลัก\n\n# ตลาด\n\nตลาดน้ำดำเนินสะดวกเปิดทุกเช้า มีผลไม้และขนมพื้นบ้านมากมาย";
    const pair = await versionPair(before, after);
    expect(new Set(strategies(pair.childChunks))).toEqual(new Set(["new"]));
    for (const chunk of pair.childChunks) expect(chunk.dedup_metadata.similarity.embedding_cosine).toBeNull();
    expectSummaryMatchesChunks(pair);
  });

  test("a parent without a variant of the child's configuration gets one first", async () => {
    const gen = new ProseGenerator(107);
    const sections = makeSections(gen, 4);
    const parent = await api.uploadCompleted("config-v1.md", renderMarkdown(sections), { chunk_size: 256 });
    const child = await api.uploadCompleted("config-v2.md", renderMarkdown([...sections, ...makeSections(gen, 1)]), {
      chunk_size: 200,
      chunk_overlap: 0,
      parent_document_id: parent.document_id,
    });
    const parentRecord = await api.getJson(`/api/documents/${parent.document_id}`);
    expect(parentRecord.variants.map((v: any) => [v.chunk_size, v.chunk_overlap, v.status])).toEqual([
      [256, 50, "completed"],
      [200, 0, "completed"],
    ]);
    const summary = await api.getJson(`/api/documents/variants/${child.variant_id}/dedup-summary`);
    expect(summary).toMatchObject({ has_parent: true, parent_version_id: parent.version_id });
    expect(summary.chunk_breakdown.exact).toBe(4);
    const chunks = await api.allChunks(child.variant_id);
    const parentVariantChunkIds = new Set((await api.allChunks(parentRecord.variants[1].id)).map((c) => c.id));
    for (const chunk of chunks.filter((c) => c.is_reused)) expect(parentVariantChunkIds.has(chunk.dedup_source_chunk_id)).toBe(true);
  });

  test("a first version: has_parent false, every chunk new; a chain's latest version is reported on every member", async () => {
    const gen = new ProseGenerator(108);
    const v1 = await api.uploadCompleted("chain.md", renderMarkdown(makeSections(gen, 2)));
    const summary = await api.getJson(`/api/documents/variants/${v1.variant_id}/dedup-summary`);
    expect(summary).toMatchObject({ has_parent: false, parent_version_id: null, reused_sentences: 0, embeddings_reused: 0 });
    expect(summary.chunk_breakdown.new).toBe(summary.total_chunks);
    expect(summary.embedding_recommendations.regenerate).toBe(summary.total_chunks);
    const v2 = await api.uploadCompleted("chain-2.md", renderMarkdown(makeSections(gen, 2)), { parent_document_id: v1.document_id });
    const v3 = await api.uploadCompleted("chain-3.md", renderMarkdown(makeSections(gen, 2)), { parent_document_id: v2.document_id });
    expect(v3.version_number).toBe(3);
    expect((await api.getJson(`/api/documents/${v1.document_id}`)).latest_version_id).toBe(v3.version_id);
    expect((await api.getJson(`/api/documents/${v1.document_id}/duplicates`)).duplicates[0].latest_version_id).toBe(v3.version_id);
    // Deleting the middle version unlinks v3 from it; v3's summary still names what it was compared with.
    expect((await api.delete(`/api/documents/${v2.document_id}`)).status).toBe(200);
    expect(await api.getJson(`/api/documents/${v3.document_id}`)).toMatchObject({ parent_document_id: null, parent_version_id: null });
    expect(await api.getJson(`/api/documents/variants/${v3.variant_id}/dedup-summary`)).toMatchObject({ has_parent: true, parent_version_id: v2.version_id });
  });

  test("workspace usage adds up the embeddings computed and copied by every variant", async () => {
    const usage = (await api.getJson("/api/usage")).documents;
    const list = await api.getJson("/api/documents?limit=1000");
    const variants = list.documents.flatMap((d: any) => d.variants);
    expect(usage.embeddings_computed).toBeGreaterThanOrEqual(variants.reduce((sum: number, v: any) => sum + v.embeddings_computed, 0));
    expect(usage.embeddings_reused).toBeGreaterThan(0);
    expect(usage.chunks_created).toBeGreaterThanOrEqual(usage.embeddings_computed);
  });
});
