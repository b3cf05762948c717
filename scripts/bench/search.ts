/**
 * bench:search — latency of POST /api/documents/search's service (no HTTP) over generated chunks,
 * on SQLite and (--postgres) PostgreSQL, and the cost of embedding the query at request priority.
 *
 * Per tier (--chunks 10000,100000): one workspace of 100 documents with one completed variant
 * each; chunk texts are generated prose (3 sentences), their vectors real embeddings of the first
 * --unique texts (cycled past that: the scan's cost does not depend on the values). Each of the
 * queries (manual questions, identifiers, prose) runs as vector-only, keyword-only, hybrid and
 * hybrid filtered to one document. Baseline in the same run: the chunks endpoint's query (one
 * variant's first 10 chunks). The sign-bit prefilter's recall@10 against an exact scan of the
 * same vectors is printed too (both databases prefilter: SQLite in memory, PostgreSQL in SQL).
 *
 *   bun scripts/bench/search.ts [--chunks 10000,100000] [--unique 5000] [--queries 40] [--postgres]
 */
import { asc, eq } from "drizzle-orm";
import { parseArgs } from "node:util";
import { configWith } from "../../src/config";
import { openStorage, type Storage } from "../../src/db/connection";
import { writeChunks, type NewChunk } from "../../src/documents/chunk-store";
import { searchBody } from "../../src/documents/model";
import { documentChunks, documents, documentVariants, documentVersions } from "../../src/documents/schema";
import { candidateChunks, searchedVariants } from "../../src/documents/search/candidates";
import { vectorRanking } from "../../src/documents/search/rankings";
import { searchChunks } from "../../src/documents/search/service";
import { dot } from "../../src/cache/vector-codec";
import { assetPaths } from "../../src/runtime/assets";
import { loadEmbedder } from "../../src/server";
import { WorkspaceScope } from "../../src/tenancy/scope";
import { createWorkspace } from "../../src/tenancy/service";
import { ProseGenerator } from "../../test/dedup/fixtures/prose";
import { tempDir } from "../../test/support/temp-dir";
import { retrievalCorpus } from "../eval/retrieval-corpus";
import { startCluster } from "../pg/cluster";
import { markdownTable, ms, summarize } from "./stats";

const { values: args } = parseArgs({
  options: {
    chunks: { type: "string", default: "10000,100000" },
    unique: { type: "string", default: "5000" },
    queries: { type: "string", default: "40" },
    postgres: { type: "boolean", default: false },
  },
});
const tiers = args.chunks.split(",").map(Number);
const DOCUMENTS = 100;
const embedder = await loadEmbedder(configWith({ logLevel: "silent" }));
const assets = assetPaths();
const cluster = args.postgres ? await startCluster() : undefined;

// Chunk texts and their vectors, shared by the tiers.
const prose = new ProseGenerator(2026);
const largest = Math.max(...tiers);
const texts = Array.from({ length: largest }, () => prose.proseParagraph(3).sentences.join(" "));
const uniqueCount = Math.min(Number(args.unique), largest);
const t0 = performance.now();
const uniqueVectors: Float32Array[] = [];
for (let i = 0; i < uniqueCount; i += 64) uniqueVectors.push(...(await embedder.embedMany(texts.slice(i, i + 64), { priority: "bulk" })));
console.error(`embedded ${uniqueCount} chunk texts in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const vectorOf = (i: number) => uniqueVectors[i % uniqueCount]!;

const corpus = retrievalCorpus(3, 12);
const queryProse = new ProseGenerator(77);
const queryCount = Number(args.queries);
const queries = Array.from({ length: queryCount }, (_, i) =>
  i % 3 === 0 ? corpus.questions[i]!.query : i % 3 === 1 ? corpus.questions.find((q, j) => j > i && q.kind === "identifier")!.query : queryProse.sentence(),
);

function chunkOf(variantId: string, index: number, text: string): NewChunk {
  return {
    id: crypto.randomUUID(), variantId, chunkIndex: index, text, textHash: String(index), pageNumber: null, pageRange: [], sectionHierarchy: ["Bench"],
    tokens: 60, metadata: { format: "markdown" } as never, chunkType: "text", containsTable: false, tableMetadata: null, chunkingStrategy: "recursive",
    sectionNumber: null, qualityScore: 1, syntheticContext: null, parentChunkId: null, boundingBox: null, dedupStrategy: "new", dedupConfidence: 0,
    isReused: false, dedupSourceChunkId: null, totalSentences: 3, reusedSentencesCount: 0, newSentencesCount: 3, contentReuseRatio: 0,
    embeddingRecommendation: "regenerate", recommendationConfidence: "high", dedupMetadata: {} as never, embeddingCopied: false,
  };
}

async function fill(storage: Storage, chunks: number): Promise<{ scope: WorkspaceScope; documentIds: string[]; variantIds: string[] }> {
  const scope = new WorkspaceScope(storage, (await createWorkspace(storage.db, "bench")).id);
  const documentIds: string[] = [];
  const variantIds: string[] = [];
  const perDocument = Math.ceil(chunks / DOCUMENTS);
  for (let d = 0; d < DOCUMENTS; d++) {
    const documentId = crypto.randomUUID();
    const versionId = crypto.randomUUID();
    const variantId = crypto.randomUUID();
    await scope.transaction(async (tx) => {
      const values = { id: documentId, filename: `doc-${d}.md`, contentHash: documentId, fileSizeBytes: 1, mimeType: "text/markdown", format: "markdown", pageCount: 1, isCanonical: true } as const;
      await tx.insert(documents, values);
      await tx.insert(documentVersions, { id: versionId, documentId, chainId: documentId, versionNumber: 1 });
      await tx.insert(documentVariants, { id: variantId, versionId, chunkingStrategy: "recursive", chunkSize: 512, chunkOverlap: 50, status: "completed" });
      const first = d * perDocument;
      const count = Math.max(0, Math.min(perDocument, chunks - first));
      for (let start = 0; start < count; start += 500) {
        const indexes = Array.from({ length: Math.min(500, count - start) }, (_, k) => first + start + k);
        await writeChunks(tx, indexes.map((i) => chunkOf(variantId, i - first, texts[i]!)), indexes.map(vectorOf));
      }
    });
    documentIds.push(documentId);
    variantIds.push(variantId);
  }
  return { scope, documentIds, variantIds };
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const dialect = args.postgres ? "PostgreSQL" : "SQLite";
const rows: (string | number)[][] = [];
const recallRows: (string | number)[][] = [];
for (const tier of tiers) {
  const storage = await openStorage({
    dataDir: tempDir("sieve-bench-search-"),
    databaseUrl: cluster?.createDatabase(`bench_search_${tier}`),
    vecExtension: assets.vecExtension,
    migrationsDir: assets.migrationsDir,
  });
  const filled = performance.now();
  const { scope, documentIds, variantIds } = await fill(storage, tier);
  console.error(`${dialect}: ${tier} chunks written in ${((performance.now() - filled) / 1000).toFixed(1)} s`);
  // A running PostgreSQL has statistics (autovacuum); right after a bulk load it has none until
  // autovacuum gets there, at a moment of its own choosing during the measurement.
  if (args.postgres) await storage.run("vacuum analyze");
  const queryVectors = await embedder.embedMany(queries, { priority: "request" });
  const cases: [string, (i: number) => Promise<unknown>][] = [
    ["baseline: chunks endpoint query (10 chunks of one variant)", (i) => scope.select(documentChunks, eq(documentChunks.variantId, variantIds[i % DOCUMENTS]!)).orderBy(asc(documentChunks.chunkIndex)).limit(10)],
    ["query embedding (request priority)", (i) => embedder.embed(`${queries[i]!} ${i}`)],
    ["vector only", (i) => searchChunks(scope, searchBody.parse({ query: queries[i], weights: { vector: 1, keyword: 0 } }), async () => queryVectors[i]!)],
    ["keyword only", (i) => searchChunks(scope, searchBody.parse({ query: queries[i], weights: { vector: 0, keyword: 1 } }), async () => queryVectors[i]!)],
    ["hybrid", (i) => searchChunks(scope, searchBody.parse({ query: queries[i] }), async () => queryVectors[i]!)],
    ["hybrid, one document (filter)", (i) => searchChunks(scope, searchBody.parse({ query: queries[i], filters: { document_ids: [documentIds[i % DOCUMENTS]] } }), async () => queryVectors[i]!)],
  ];
  let baseline = NaN;
  for (const [name, run] of cases) {
    for (let i = 0; i < 3; i++) await run(i); // warm caches and statements
    const samples: number[] = [];
    for (let i = 0; i < queryCount; i++) samples.push(await timed(() => run(i)));
    const summary = summarize(samples);
    if (name.startsWith("baseline")) baseline = summary.p50;
    rows.push([dialect, tier, name, ms(summary.p50), ms(summary.p95), `${(summary.p50 / baseline).toFixed(1)}×`]);
  }
  {
    // The sign-bit prefilter against an exact scan of the same vectors (all chunks are candidates).
    const candidates = candidateChunks(scope, await searchedVariants(scope, searchBody.parse({ query: "x" }).filters), {});
    for (const prefilter of [400, 1000, 2000]) {
      let found = 0;
      const samples: number[] = [];
      for (let i = 0; i < queryCount; i++) {
        const exact = Array.from({ length: tier }, (_, j) => dot(queryVectors[i]!, vectorOf(j))).sort((a, b) => b - a).slice(0, 10);
        let ranked: Awaited<ReturnType<typeof vectorRanking>> = [];
        samples.push(await timed(async () => (ranked = await vectorRanking(scope, candidates, queryVectors[i]!, 10, prefilter))));
        // Compared by similarity (cycled vectors tie): a ranked chunk counts when it is as close as the exact 10th.
        found += ranked.filter((hit) => hit.similarity! >= exact[9]! - 1e-6).length;
      }
      const summary = summarize(samples);
      recallRows.push([dialect, tier, prefilter, (found / (10 * queryCount)).toFixed(3), ms(summary.p50), ms(summary.p95)]);
    }
  }
  await storage.close();
}
console.log(`bench:search — ${queryCount} queries per case, ${DOCUMENTS} documents, limit 10, ranking depth 50; p50/p95 in ms; ratio = p50 / baseline p50\n`);
console.log(markdownTable(["database", "chunks", "case", "p50", "p95", "ratio"], rows));
console.log(`\nSign-bit prefilter: recall@10 against an exact scan, and the vector ranking's latency:\n\n${markdownTable(["database", "chunks", "re-scored", "recall@10", "p50", "p95"], recallRows)}`);
cluster?.stop();
process.exit(0);
