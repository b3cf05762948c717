/**
 * The vector side of search on SQLite (src/documents/search/vector-index.ts): sign bits in memory,
 * one partition per document variant, a prefilter re-scored exactly. Over real uploads through HTTP, ranked at service
 * level with a prefilter of 5 (the server's is 1,000, more than these documents hold, which would
 * skip the in-memory scan). The query vector is a chunk's stored vector: that chunk must come
 * first with similarity 1. Checks chunk filters, writes, deletes, a rolled-back delete, tenancy
 * and a restart.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { retrievalCorpus } from "../../scripts/eval/retrieval-corpus";
import type { SignBitPartition } from "../../src/db/sign-bit-index";
import { readVectors } from "../../src/documents/chunk-store";
import { searchBody } from "../../src/documents/model";
import { candidateChunks, searchedVariants } from "../../src/documents/search/candidates";
import { vectorRanking } from "../../src/documents/search/rankings";
import { forgetVariantVectors, variantPartition } from "../../src/documents/search/vector-index";
import { WorkspaceScope } from "../../src/tenancy/scope";
import { startSieve, tempDir, type Tenant, type TestSieve } from "../support/sieve";
import { DocumentsClient } from "./api-client";

const onSqlite = process.env.SIEVE_TEST_DATABASE !== "postgres";
const corpus = retrievalCorpus(91, 3);
const CHUNKING = { chunk_size: 64 };

let sieve: TestSieve;
let alice: Tenant;
let bob: Tenant;
const uploads: any[] = [];

beforeAll(async () => {
  if (!onSqlite) return;
  sieve = await startSieve();
  alice = await sieve.tenant("alice");
  bob = await sieve.tenant("bob");
  const api = new DocumentsClient(sieve.url, alice);
  for (const manual of corpus.manuals) uploads.push(await api.uploadCompleted(manual.filename, manual.markdown, CHUNKING));
  const bobsManual = retrievalCorpus(93, 1).manuals[0]!;
  await new DocumentsClient(sieve.url, bob).uploadCompleted(bobsManual.filename, bobsManual.markdown, CHUNKING);
}, 60_000);

afterAll(async () => {
  await sieve?.close();
});

const scopeOf = (running: TestSieve, tenant: Tenant) => new WorkspaceScope(running.ctx.database, tenant.workspaceId);

/** The vector ranking, 3 deep, re-scoring the 5 Hamming-nearest candidates. */
async function rank(scope: WorkspaceScope, vector: Float32Array, filters: object = {}) {
  const parsed = searchBody.parse({ query: "x", filters }).filters;
  return vectorRanking(scope, candidateChunks(scope, await searchedVariants(scope, parsed), parsed), vector, 3, 5);
}

/** A variant's chunks: seq and stored vector. */
async function chunksOf(scope: WorkspaceScope, variantId: string): Promise<{ seq: number; vector: Float32Array }[]> {
  const vectors = await readVectors(scope, variantId);
  const rows = await scope.all<{ id: string; seq: number }>(`select id, seq from document_chunks where workspace_id = $workspace_id and variant_id = $variant_id`, { variant_id: variantId });
  return rows.map((row) => ({ seq: row.seq, vector: vectors.get(row.id)! }));
}

/** A variant's loaded partition (rejects when it is not loaded). */
function loadedPartition(scope: WorkspaceScope, variantId: string): Promise<SignBitPartition> {
  return scope.signBits!.partition(variantPartition(variantId), () => Promise.reject(new Error("partition not loaded")));
}

describe.skipIf(!onSqlite)("SQLite: in-memory sign-bit prefilter, exact re-scoring", () => {
  test("a chunk's own vector ranks it first (similarity 1) among the candidates only", async () => {
    const scope = scopeOf(sieve, alice);
    const chunks = await chunksOf(scope, uploads[0].variant_id);
    expect(chunks.length).toBeGreaterThan(10); // more candidates than the prefilter keeps
    for (const chunk of chunks.slice(0, 8)) {
      const [best, ...rest] = await rank(scope, chunk.vector);
      expect(best!.seq).toBe(chunk.seq);
      expect(best!.similarity).toBeCloseTo(1, 5);
      expect(rest.every((hit) => hit.similarity! <= best!.similarity!)).toBe(true);
      // Filtered to another document, the chunk is no candidate.
      const elsewhere = await rank(scope, chunk.vector, { document_ids: [uploads[1].document_id] });
      const allowed = new Set((await chunksOf(scope, uploads[1].variant_id)).map((c) => c.seq));
      expect(elsewhere.length).toBe(3);
      expect(elsewhere.every((hit) => allowed.has(hit.seq))).toBe(true);
      // A chunk filter: only the candidate seqs the database names are scanned.
      const texts = await rank(scope, chunk.vector, { chunk_types: ["text"] });
      expect(texts[0]!.seq).toBe(chunk.seq);
      expect(await rank(scope, chunk.vector, { chunk_types: ["table"] })).toEqual([]);
    }
  });

  test("partitions are per variant and workspace: Bob's search reads none of Alice's chunks", async () => {
    const aliceScope = scopeOf(sieve, alice);
    const bobScope = scopeOf(sieve, bob);
    const aliceChunks = await chunksOf(aliceScope, uploads[0].variant_id);
    await rank(aliceScope, aliceChunks[0]!.vector);
    const bobRanked = await rank(bobScope, aliceChunks[0]!.vector);
    expect(bobRanked.length).toBe(3);
    const aliceSeqs = new Set((await Promise.all(uploads.map((u) => chunksOf(aliceScope, u.variant_id)))).flat().map((c) => c.seq));
    expect(bobRanked.some((hit) => aliceSeqs.has(hit.seq))).toBe(false);
    expect((await loadedPartition(aliceScope, uploads[0].variant_id)).size).toBe(aliceChunks.length);
    // Alice's variant is not reachable through Bob's scope.
    await expect(loadedPartition(bobScope, uploads[0].variant_id)).rejects.toThrow("partition not loaded");
  });

  test("a document uploaded after the partitions are loaded is found; a deleted one is gone at once and its partition dropped", async () => {
    const scope = scopeOf(sieve, alice);
    const api = new DocumentsClient(sieve.url, alice);
    await rank(scope, (await chunksOf(scope, uploads[0].variant_id))[0]!.vector);
    const manual = retrievalCorpus(92, 1).manuals[0]!;
    const upload = await api.uploadCompleted("later.md", manual.markdown, CHUNKING);
    const added = await chunksOf(scope, upload.variant_id);
    expect((await rank(scope, added[3]!.vector))[0]!.seq).toBe(added[3]!.seq);
    expect((await loadedPartition(scope, upload.variant_id)).size).toBe(added.length);

    expect((await api.delete(`/api/documents/${upload.document_id}`)).status).toBe(200);
    const gone = new Set(added.map((c) => c.seq));
    expect((await rank(scope, added[3]!.vector)).some((hit) => gone.has(hit.seq))).toBe(false);
    await expect(loadedPartition(scope, upload.variant_id)).rejects.toThrow("partition not loaded");
  });

  test("a delete rolled back after it dropped the partition: the next search reads it again and finds the chunks", async () => {
    const scope = scopeOf(sieve, alice);
    const variantId = uploads[2].variant_id;
    const chunk = (await chunksOf(scope, variantId))[1]!;
    await rank(scope, chunk.vector);
    const failed = scope.transaction(async (tx) => {
      forgetVariantVectors(tx, [variantId]);
      await tx.run(`delete from document_chunks where workspace_id = $workspace_id and variant_id = $variant_id`, { variant_id: variantId });
      throw new Error("the delete fails after the partition was dropped");
    });
    await expect(failed).rejects.toThrow("the delete fails");
    await expect(loadedPartition(scope, variantId)).rejects.toThrow("partition not loaded");
    const [best] = await rank(scope, chunk.vector);
    expect(best!.seq).toBe(chunk.seq);
    expect((await loadedPartition(scope, variantId)).size).toBe((await chunksOf(scope, variantId)).length);
  });

  test("after a restart the partition is rebuilt from the rows", async () => {
    const dataDir = tempDir("sieve-vector-index-");
    const first = await startSieve({ dataDir });
    const tenant = await first.tenant("restart");
    const upload = await new DocumentsClient(first.url, tenant).uploadCompleted(corpus.manuals[0]!.filename, corpus.manuals[0]!.markdown, CHUNKING);
    const chunks = await chunksOf(scopeOf(first, tenant), upload.variant_id);
    await first.stop();
    const second = await startSieve({ dataDir });
    try {
      const scope = scopeOf(second, tenant);
      for (const chunk of chunks.slice(0, 5)) expect((await rank(scope, chunk.vector))[0]!.seq).toBe(chunk.seq);
      expect((await loadedPartition(scope, upload.variant_id)).size).toBe(chunks.length);
    } finally {
      await second.close();
    }
  });
});
