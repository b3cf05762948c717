import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { samplePdf } from "../fixtures-gen/sample-documents";
import { startSieve, type TestSieve } from "../support/sieve";
import { DocumentsClient } from "./api-client";
import { longMarkdown } from "./documents-gen";

let sieve: TestSieve;
let alice: DocumentsClient;
let bob: DocumentsClient;

beforeAll(async () => {
  sieve = await startSieve();
  alice = new DocumentsClient(sieve.url, await sieve.tenant("alice"));
  bob = new DocumentsClient(sieve.url, await sieve.tenant("bob"));
});

afterAll(async () => {
  await sieve.close();
});

const texts = (chunks: any[]) => chunks.map((chunk) => chunk.text);

async function vectorCount(workspaceId: string): Promise<number> {
  return Number((await sieve.ctx.database.all<{ n: number }>("select count(*) as n from chunk_embeddings where workspace_id = $id", { id: workspaceId }))[0]!.n);
}

describe("exact duplicates (spec §3)", () => {
  let pdf: Uint8Array;
  let canonical: any;
  let copies: any[];

  test("same bytes again: exactly §2.6, zero cost, chunks reused without parsing or embedding", async () => {
    pdf = (await samplePdf()).bytes;
    canonical = await alice.uploadCompleted("report.pdf", pdf);
    const before = (await alice.getJson("/api/usage")).documents;

    copies = [];
    for (const name of ["report-copy.pdf", "report-final.pdf"]) {
      const response = await alice.uploadFile(name, pdf);
      expect(response.status).toBe(201);
      copies.push(await response.json());
    }
    const [copy] = copies;
    expect(Object.keys(copy).sort()).toEqual(
      ["variant_id", "document_id", "is_duplicate", "canonical_document_id", "processing_skipped", "cost_saved", "status", "chunks_count"].sort(),
    );
    expect(copy).toMatchObject({
      is_duplicate: true,
      canonical_document_id: canonical.document_id,
      processing_skipped: true,
      cost_saved: 3,
      status: "completed",
      chunks_count: canonical.chunks_count,
    });
    expect(copy.document_id).not.toBe(canonical.document_id);

    const original = await alice.allChunks(canonical.variant_id);
    const reused = await alice.allChunks(copy.variant_id);
    expect(texts(reused)).toEqual(texts(original));
    expect(reused.map((c) => c.page_range)).toEqual(original.map((c) => c.page_range));
    expect(reused.map((c) => c.section_hierarchy)).toEqual(original.map((c) => c.section_hierarchy));
    for (const chunk of reused) expect(chunk.metadata.embedding_source).toBe("copied");
    expect(new Set([...reused, ...original].map((c) => c.id)).size).toBe(2 * original.length);

    const variant = await alice.getJson(`/api/documents/variants/${copy.variant_id}`);
    expect(variant).toMatchObject({ pages_processed: 0, pages_saved: 3, embeddings_computed: 0, embeddings_reused: original.length });
    const summary = await alice.getJson(`/api/documents/variants/${copy.variant_id}/dedup-summary`);
    expect(summary).toMatchObject({ has_parent: false, parent_version_id: null, total_chunks: original.length, embeddings_computed: 0 });

    const after = (await alice.getJson("/api/usage")).documents;
    expect(after.pages_processed - before.pages_processed).toBe(0);
    expect(after.pages_saved - before.pages_saved).toBe(6);
    expect(after.duplicates_detected - before.duplicates_detected).toBe(2);
    expect(after.embeddings_computed - before.embeddings_computed).toBe(0);
    expect(after.embeddings_reused - before.embeddings_reused).toBe(2 * original.length);

    const record = await alice.getJson(`/api/documents/${copy.document_id}`);
    expect(record).toMatchObject({ is_canonical: false, canonical_document_id: canonical.document_id, content_hash: canonical.content_hash, page_count: 3, status: "completed" });
  });

  test("duplicates endpoints: the group with its canonical (§2.4), and the workspace's groups (§2.5)", async () => {
    const group = await alice.getJson(`/api/documents/${copies[1].document_id}/duplicates`);
    expect(group.document_id).toBe(copies[1].document_id);
    expect(group.count).toBe(3);
    expect(group.duplicates.map((d: any) => d.id)).toEqual([canonical.document_id, copies[0].document_id, copies[1].document_id]);
    expect(Object.keys(group.duplicates[0]).sort()).toEqual(["created_at", "filename", "id", "is_canonical", "latest_version_id"]);
    expect(group.duplicates[0]).toMatchObject({ filename: "report.pdf", is_canonical: true, latest_version_id: canonical.version_id });
    expect(group.duplicates[1]).toMatchObject({ filename: "report-copy.pdf", is_canonical: false });

    const all = await alice.getJson("/api/documents/duplicates");
    expect(all).toMatchObject({ total_groups: 1, total_duplicates: 2 });
    expect(all.duplicate_groups[0]).toEqual({
      content_hash: canonical.content_hash,
      canonical_document_id: canonical.document_id,
      canonical_filename: "report.pdf",
      duplicates: group.duplicates.slice(1),
      total_count: 2,
    });
  });

  test("another workspace never sees these documents, and the same bytes there are a new canonical", async () => {
    const theirs: any = await (await bob.uploadFile("report.pdf", pdf)).json();
    expect(theirs).toMatchObject({ is_duplicate: false, status: "completed", cost: 3 });
    expect(await bob.getJson("/api/documents/duplicates")).toEqual({ duplicate_groups: [], total_groups: 0, total_duplicates: 0 });
    expect((await bob.getJson(`/api/documents/${theirs.document_id}/duplicates`)).count).toBe(1);
    expect((await bob.get(`/api/documents/${canonical.document_id}/duplicates`)).status).toBe(404);
    expect((await bob.getJson("/api/documents")).total).toBe(1);
    expect((await alice.getJson("/api/documents/duplicates")).total_duplicates).toBe(2);
    expect((await bob.getJson("/api/usage")).documents).toMatchObject({ pages_processed: 3, pages_saved: 0, duplicates_detected: 0 });
  });

  test("deleting the canonical promotes the oldest duplicate; chunks stay readable; the bytes go with the last copy", async () => {
    const copyChunks = await alice.allChunks(copies[0].variant_id);
    const deleted = await alice.delete(`/api/documents/${canonical.document_id}`);
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ document_id: canonical.document_id, deleted: true, promoted_canonical_document_id: copies[0].document_id });
    expect((await alice.get(`/api/documents/${canonical.document_id}`)).status).toBe(404);
    expect((await alice.get(`/api/documents/variants/${canonical.variant_id}/chunks`)).status).toBe(404);

    expect(await alice.getJson(`/api/documents/${copies[0].document_id}`)).toMatchObject({ is_canonical: true, canonical_document_id: null });
    expect(await alice.getJson(`/api/documents/${copies[1].document_id}`)).toMatchObject({ is_canonical: false, canonical_document_id: copies[0].document_id });
    expect(await alice.allChunks(copies[0].variant_id)).toEqual(copyChunks);
    const groups = await alice.getJson("/api/documents/duplicates");
    expect(groups).toMatchObject({ total_groups: 1, total_duplicates: 1 });
    expect(groups.duplicate_groups[0]).toMatchObject({ canonical_document_id: copies[0].document_id, canonical_filename: "report-copy.pdf", total_count: 1 });

    // A third copy now duplicates the promoted canonical.
    const third: any = await (await alice.uploadFile("again.pdf", pdf)).json();
    expect(third).toMatchObject({ is_duplicate: true, canonical_document_id: copies[0].document_id, status: "completed" });

    for (const document of [copies[0], copies[1], third]) expect((await alice.delete(`/api/documents/${document.document_id}`)).status).toBe(200);
    expect(await alice.getJson("/api/documents/duplicates")).toEqual({ duplicate_groups: [], total_groups: 0, total_duplicates: 0 });
    const [blobs] = await sieve.ctx.database.all<{ n: number }>("select count(*) as n from document_blobs where workspace_id = $id", { id: alice.tenant.workspaceId });
    expect(Number(blobs!.n)).toBe(0);
    expect(await vectorCount(alice.tenant.workspaceId)).toBe(0);
    // Bob's copy of the same bytes is untouched.
    expect(await vectorCount(bob.tenant.workspaceId)).toBeGreaterThan(0);
    // Usage totals survive deletion.
    expect((await alice.getJson("/api/usage")).documents.pages_saved).toBe(9);
  });

  test("a duplicate uploaded while its canonical is still processing completes with the canonical's chunks", async () => {
    const text = longMarkdown(11, 24);
    const first: any = await (await alice.uploadFile("slow.md", text, { chunk_size: 48 })).json();
    const second = await alice.uploadFile("slow-copy.md", text, { chunk_size: 48 });
    const copy: any = await second.json();
    expect(copy).toMatchObject({ is_duplicate: true, canonical_document_id: first.document_id, processing_skipped: true });
    expect(second.status).toBe(copy.status === "completed" ? 201 : 202);
    await alice.waitForVariant(first.variant_id);
    const variant = await alice.waitForVariant(copy.variant_id);
    expect(variant).toMatchObject({ embeddings_computed: 0, pages_saved: 1 });
    expect(texts(await alice.allChunks(copy.variant_id))).toEqual(texts(await alice.allChunks(first.variant_id)));
  });

  test("a duplicate has no lineage, even when the upload names a parent", async () => {
    const base = await alice.uploadCompleted("base.md", "# Base\n\nThe first text of a chain.");
    const v2 = await alice.uploadCompleted("v2.md", "# Base\n\nThe second text of a chain.", { parent_document_id: base.document_id });
    expect(v2).toMatchObject({ deduplication_available: true, parent_document_id: base.document_id, version_number: 2 });
    const again: any = await (await alice.uploadFile("v2-again.md", "# Base\n\nThe second text of a chain.", { parent_document_id: base.document_id })).json();
    expect(again).toMatchObject({ is_duplicate: true, canonical_document_id: v2.document_id });
    expect(await alice.getJson(`/api/documents/${again.document_id}`)).toMatchObject({ parent_document_id: null, parent_version_id: null, version_number: 1 });
  });
});
