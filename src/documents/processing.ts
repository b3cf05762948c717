/**
 * One variant's job: parse → chunk → dedup against the parent version → embed → write the
 * chunks and vectors in a few short transactions, the last of which sets status=completed.
 * Readers only ever see chunks of completed variants, and a job (re)started on a `processing`
 * variant first deletes whatever an interrupted write left, so a process killed mid-job
 * leaves nothing visible and the restarted server runs the job again from the stored bytes.
 */
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { dedupChunk, noParentResult, normaliseText, ParentIndexBuilder, type DedupResult, type ParentChunk, type ParentIndex } from "../dedup";
import type { Embedder } from "../embeddings/embedder";
import type { Logger } from "../logging/logger";
import type { WorkspaceScope } from "../tenancy/scope";
import { chunkDocument, type ChunkDraft, type ChunkInjection } from "./chunking";
import { protectChunks } from "../data-protection/documents";
import type { ChunkingConfig } from "./chunking-config";
import { readChunks, readVectors, writeChunks, type NewChunk } from "./chunk-store";
import { forgetVariantVectors } from "./search/vector-index";
import { dedupColumns } from "./dedup-columns";
import type { ParsedDocument } from "./parsing";
import {
  ensureVariant,
  findDocument,
  findVariant,
  findVersion,
  readBlob,
  variantConfig,
  versionOfDocument,
  type DocumentRow,
  type VariantRow,
  type VersionRow,
} from "./records";
import { documentChunks, documentVariants, type VariantStatus } from "./schema";
import { TimeSlice } from "./time-slice";
import type { JobLeases } from "./leases";
import { addUsage } from "./usage";

/**
 * Characters per embedding call, and per chunk-flag scan (at least one text): the job's progress
 * and stop checkpoints fall between batches. Inference runs in the pool's worker threads at bulk priority, so a
 * proxied request never waits behind a batch; a batch only needs enough texts (about 16
 * chunks of 256 tokens) to keep every worker busy.
 */
const EMBED_BATCH_CHARS = 20_000;

/** A job that keeps dying with the process (it is started again on every restart) is given up after this many starts. */
export const MAX_ATTEMPTS = 3;

/**
 * Chunks per write transaction of a job: all ~210 chunks of a 100-page variant in one
 * transaction held the event loop for ~15 ms on SQLite; between two batches the loop gets a turn.
 */
const WRITE_BATCH_CHUNKS = 24;

/** Thrown at a checkpoint when the server is stopping: the variant stays `processing` and resumes on restart. */
export class JobAborted extends Error {}

/** Thrown at a checkpoint when the job's document was deleted on this server: the work is dropped at once. */
export class VariantDeleted extends Error {}

/**
 * The variant a job builds on (its canonical's, or its parent version's) is another instance's
 * job, running or itself waiting: this job waits for it rather than failing (issue #56 defect 4).
 */
export class WaitingForVariant extends Error {
  constructor(readonly variantId: string) {
    super(`waiting for variant ${variantId}`);
  }
}

export type JobEnv = {
  log: Logger;
  /** Parses stored bytes again, through the server's parser (shared with uploads, same limits). */
  parse: (filename: string, bytes: Uint8Array, mimeType: string) => Promise<ParsedDocument>;
  /** The server's embedder, for its tokenizer (chunk sizes are counted in its tokens). */
  embedder: () => Promise<Embedder>;
  /** Chunk vectors, computed at bulk priority (after every request-path text). */
  embedTexts: (texts: string[]) => Promise<Float32Array[]>;
  /** Chunk flags: the firewall's data channel on chunk texts (bulk priority); undefined when the firewall or its chunk check is off. */
  chunkFlags?: ChunkFlagScanner;
  /** Throws JobAborted when the server is stopping, VariantDeleted when the running job's document was deleted. */
  checkpoint: () => void;
  /** The document parsed at upload (handed out once), so the first job of a version does not parse it twice. */
  takeParsed: (versionId: string) => ParsedDocument | undefined;
  /** Called when a variant reaches completed or failed (or turns out to be deleted). */
  settled: (variantId: string) => void;
  /** The job parked `variantId` (pending, lease kept) until `sourceVariantId` is completed, failed, deleted or nobody's job: run it again then. */
  waitFor: (workspaceId: string, variantId: string, sourceVariantId: string) => void;
  leases: JobLeases;
};

export type ChunkFlagScanner = {
  /** Each text's verdict, and the fingerprint of the workspace's patterns they were scanned with. */
  scan: (scope: WorkspaceScope, texts: string[]) => Promise<{ injections: ChunkInjection[]; checkedWith: string }>;
  /** The fingerprint a scan would give now. */
  current: (scope: WorkspaceScope) => Promise<string>;
};

/** A chunk text's verdict and the fingerprint of the patterns it was scanned with. */
export type ScannedChunk = { injection: ChunkInjection; checkedWith: string };

/** Scans `texts` batch by batch, appending each verdict to `into` as its batch returns (a rescan keeps them if it steps aside). */
export async function scanChunkFlags(flags: ChunkFlagScanner, scope: WorkspaceScope, texts: string[], afterBatch: () => void, into: ScannedChunk[] = []): Promise<ScannedChunk[]> {
  await inBatches(
    async (batch) => {
      const { injections, checkedWith } = await flags.scan(scope, batch);
      into.push(...injections.map((injection) => ({ injection, checkedWith })));
      return injections;
    },
    texts,
    afterBatch,
  );
  return into;
}

/** The one fingerprint every verdict was scanned with; null when they differ (the patterns changed meanwhile). */
export function scannedWith(scans: ScannedChunk[]): string | null {
  const used = new Set(scans.map((scan) => scan.checkedWith));
  return used.size === 1 ? [...used][0]! : null;
}

/** Everything a completed variant consists of, ready to be written. */
export type VariantResult = {
  chunks: NewChunk[];
  vectors: Float32Array[];
  parentVersionId: string | null;
  pagesProcessed: number;
  pagesSaved: number;
  embeddingsComputed: number;
  embeddingsReused: number;
  /** The patterns all its chunk flags were scanned with; null when not all were scanned with the same ones. */
  flagsCheckedWith: string | null;
};

/**
 * Runs a pending or interrupted variant to completed or failed; returns its final status, null if
 * it was deleted. "processing" when another instance holds it; "pending" when it waits for another
 * instance's job (then `env.waitFor` runs it again later).
 */
export async function runVariantJob(env: JobEnv, scope: WorkspaceScope, variantId: string): Promise<VariantStatus | null> {
  const variant = await findVariant(scope, variantId);
  if (!variant) {
    env.settled(variantId);
    return null;
  }
  if (variant.status === "completed" || variant.status === "failed") return variant.status;
  const byId = eq(documentVariants.id, variantId);
  if (variant.attempts >= MAX_ATTEMPTS) {
    const error = `gave up after ${variant.attempts} interrupted attempts`;
    await scope.update(documentVariants, { status: "failed", error, completedAt: new Date(), leaseOwner: null, leaseUntil: null }, byId);
    env.settled(variantId);
    return "failed";
  }
  // Another instance holds a live lease on it: that one finishes it.
  if (!(await env.leases.claim(scope, variant))) return "processing";
  const heartbeat = env.leases.keepAlive(scope, variantId);
  let status: VariantStatus | null;
  try {
    const result = await buildVariant(env, scope, variant);
    env.checkpoint();
    status = await writeInBatches(env, scope, variantId, result);
    if (status === "completed") {
      env.log.info("document variant completed", { variant_id: variantId, chunks: result.chunks.length, embeddings_reused: result.embeddingsReused });
    }
  } catch (error) {
    if (error instanceof JobAborted) {
      // A graceful stop is not a failed attempt.
      await scope.update(documentVariants, { attempts: variant.attempts, leaseUntil: null }, byId);
      throw error;
    }
    if (error instanceof VariantDeleted) {
      env.log.info("document variant deleted while it was processed", { variant_id: variantId });
      env.settled(variantId);
      return null;
    }
    if (error instanceof WaitingForVariant) {
      // Nothing is written yet (the source is read before any work): the job is simply not due yet.
      await env.leases.park(scope, variant);
      env.log.info("document variant waits for another job", { variant_id: variantId, waits_for: error.variantId });
      env.waitFor(scope.workspaceId, variantId, error.variantId);
      return "pending";
    }
    const message = (error as Error).message || String(error);
    env.log.warn("document variant failed", { variant_id: variantId, error: message });
    await scope.update(documentVariants, { status: "failed", error: message, completedAt: new Date(), leaseOwner: null, leaseUntil: null }, byId);
    status = "failed";
  } finally {
    heartbeat.stop();
  }
  env.settled(variantId);
  return status;
}

/**
 * A job's finished variant, WRITE_BATCH_CHUNKS chunks per transaction with a turn of the event
 * loop between them; the last transaction completes the variant. Each one first checks that the
 * variant is still this job's to write: deleted while the job ran (or, lease lost, taken over by
 * another instance), the work is dropped and the variant's current status returned.
 */
async function writeInBatches(env: JobEnv, scope: WorkspaceScope, variantId: string, result: VariantResult): Promise<VariantStatus | null> {
  const { chunks, vectors } = result;
  const slice = new TimeSlice();
  for (let start = 0; ; start += WRITE_BATCH_CHUNKS) {
    if (start > 0) await slice.pause();
    const end = start + WRITE_BATCH_CHUNKS;
    const outcome = await scope.transaction(async (tx): Promise<VariantStatus | null | undefined> => {
      const current = await findVariant(tx, variantId);
      if (current?.status !== "processing" || !env.leases.holds(current)) return current?.status ?? null;
      if (start === 0) await clearChunks(tx, variantId);
      await writeChunks(tx, chunks.slice(start, end), vectors.slice(start, end));
      if (end < chunks.length) return undefined;
      await completeVariant(tx, variantId, result);
      return "completed";
    });
    if (outcome !== undefined) return outcome;
  }
}

/** Writes a finished variant: chunks, vectors, status and counters, in the caller's transaction. */
export async function writeVariantResult(tx: WorkspaceScope, variantId: string, result: VariantResult): Promise<void> {
  await clearChunks(tx, variantId);
  await writeChunks(tx, result.chunks, result.vectors);
  await completeVariant(tx, variantId, result);
}

/** Removes the variant's chunks and their vectors (by cascade): what an interrupted write left. */
async function clearChunks(tx: WorkspaceScope, variantId: string): Promise<void> {
  forgetVariantVectors(tx, [variantId]);
  await tx.delete(documentChunks, eq(documentChunks.variantId, variantId));
}

/** Flagged chunks, or null when some chunk was not scanned (firewall off, or copied from chunks made before chunk flags). */
function flaggedCount(chunks: NewChunk[]): number | null {
  return chunks.every((chunk) => chunk.metadata.injection) ? chunks.filter((chunk) => chunk.injectionFlagged).length : null;
}

/** Status completed with the variant's figures, and the workspace's usage counters. */
async function completeVariant(tx: WorkspaceScope, variantId: string, result: VariantResult): Promise<void> {
  await tx.update(
    documentVariants,
    {
      status: "completed",
      error: null,
      chunksCount: result.chunks.length,
      parentVersionId: result.parentVersionId,
      pagesProcessed: result.pagesProcessed,
      pagesSaved: result.pagesSaved,
      embeddingsComputed: result.embeddingsComputed,
      embeddingsReused: result.embeddingsReused,
      flaggedChunks: flaggedCount(result.chunks),
      flagsCheckedWith: result.flagsCheckedWith,
      completedAt: new Date(),
      leaseUntil: null,
    },
    eq(documentVariants.id, variantId),
  );
  await addUsage(tx, {
    variantsProcessed: 1,
    pagesProcessed: result.pagesProcessed,
    pagesSaved: result.pagesSaved,
    chunksCreated: result.chunks.length,
    embeddingsComputed: result.embeddingsComputed,
    embeddingsReused: result.embeddingsReused,
  });
}

async function buildVariant(env: JobEnv, scope: WorkspaceScope, variant: VariantRow): Promise<VariantResult> {
  const version = (await findVersion(scope, variant.versionId))!;
  const document = (await findDocument(scope, version.documentId))!;
  const config = variantConfig(variant);
  const canonicalVersion = document.canonicalDocumentId ? await versionOfDocument(scope, document.canonicalDocumentId) : undefined;
  if (canonicalVersion) {
    const source = await completedVariant(env, scope, canonicalVersion.id, config, "the canonical document's");
    return copyOfVariant(scope, source, variant.id, document.pageCount);
  }
  return processDocument(env, scope, variant, version, document, config);
}

/**
 * The variant of `versionId` with this configuration, created and processed first if need be.
 * Another instance's job (running, or waiting itself) is waited for: WaitingForVariant.
 */
async function completedVariant(env: JobEnv, scope: WorkspaceScope, versionId: string, config: ChunkingConfig, whose: string): Promise<VariantRow> {
  const { variant } = await ensureVariant(scope, versionId, config);
  const status = await runVariantJob(env, scope, variant.id);
  if (status === "pending" || status === "processing") throw new WaitingForVariant(variant.id);
  const settled = await findVariant(scope, variant.id);
  if (status !== "completed" || !settled) throw new Error(`${whose} variant ${variant.id} is ${status ?? "deleted"}${settled?.error ? `: ${settled.error}` : ""}`);
  return settled;
}

/**
 * An exact duplicate: the canonical's chunks and vectors, copied under new ids. No parsing,
 * chunking or embedding; the duplicate has no parent version, so every chunk is `new`.
 */
export async function copyOfVariant(scope: WorkspaceScope, source: VariantRow, variantId: string, pages: number): Promise<VariantResult> {
  const rows = await readChunks(scope, source.id);
  const vectors = await readVectors(scope, source.id);
  const newIds = new Map(rows.map((row) => [row.id, crypto.randomUUID()]));
  const chunks = rows.map(({ seq: _seq, workspaceId: _workspace, ...row }): NewChunk => ({
    ...row,
    id: newIds.get(row.id)!,
    variantId,
    parentChunkId: row.parentChunkId ? (newIds.get(row.parentChunkId) ?? null) : null,
    ...dedupColumns(noParentResult({ text: row.text })),
    embeddingCopied: true,
  }));
  return {
    chunks,
    vectors: rows.map((row) => vectors.get(row.id)!),
    parentVersionId: null,
    pagesProcessed: 0,
    pagesSaved: pages,
    embeddingsComputed: 0,
    embeddingsReused: rows.length,
    flagsCheckedWith: source.flagsCheckedWith,
  };
}

async function processDocument(
  env: JobEnv,
  scope: WorkspaceScope,
  variant: VariantRow,
  version: VersionRow,
  document: DocumentRow,
  config: ChunkingConfig,
): Promise<VariantResult> {
  // The parent first: if another instance is still processing it, this job waits before doing any work.
  const parent = version.parentVersionId ? await parentChunks(env, scope, version.parentVersionId, config) : null;
  const parsed = env.takeParsed(version.id) ?? (await parseStored(env, scope, document));
  const embedder = await env.embedder();
  env.log.debug("document variant chunking", { variant_id: variant.id, blocks: parsed.blocks.length });
  const drafts = await chunkDocument(parsed, {
    strategy: config.strategy,
    chunkSize: config.chunkSize,
    chunkOverlap: config.chunkOverlap,
    tableInlineMaxTokens: config.tableInlineMaxTokens,
    countTokens: (text) => embedder.countTokens(text),
    embedMany: (texts) => inBatches(env.embedTexts, texts),
  });
  if (config.contextualPrefix) for (const draft of drafts) draft.metadata.embedded_text_prefix = contextualPrefix(document.filename, draft.section_hierarchy);
  env.log.debug("document variant chunked", { variant_id: variant.id, chunks: drafts.length });
  await protectChunks(drafts, (await scope.workspace()).dataProtection, config.redactFindings);
  env.checkpoint();

  // Exact chunks take their parent chunk's vector (when it was embedded with the same prefix); every other chunk is embedded.
  const slice = new TimeSlice();
  const index = parent ? await parentIndex(parent.chunks, slice) : null;
  const results: DedupResult[] = [];
  for (const draft of drafts) {
    results.push(index ? dedupChunk({ text: draft.text }, index) : noParentResult({ text: draft.text }));
    await slice.pause();
  }
  const vectors: (Float32Array | undefined)[] = results.map((result, i) =>
    result.is_reused && result.dedup_source_chunk_id && parent!.prefixes.get(result.dedup_source_chunk_id) === drafts[i].metadata.embedded_text_prefix
      ? parent!.vectors.get(result.dedup_source_chunk_id)
      : undefined,
  );
  const toEmbed = vectors.flatMap((vector, i) => (vector ? [] : [i]));
  const computed = await inBatches(
    env.embedTexts,
    toEmbed.map((i) => embeddingInput(drafts[i])),
    (embedded) => {
      env.log.debug("document variant progress", { variant_id: variant.id, embedded, to_embed: toEmbed.length, chunks: drafts.length });
      env.checkpoint();
    },
  );
  toEmbed.forEach((i, k) => (vectors[i] = computed[k]));
  // With its own vector known, a chunk no sentence rule matched can still be a near-duplicate by
  // cosine, unless the encoder cannot read it: chunks mostly of [UNK] (Thai, Ethiopic, …) embed
  // alike whatever they say (two unrelated Thai paragraphs: cosine ~1.0).
  if (index) {
    for (const i of toEmbed) {
      const childEmbedding = embedder.readability.readable(drafts[i].text) ? vectors[i] : undefined;
      results[i] = dedupChunk({ text: drafts[i].text }, index, { childEmbedding });
      await slice.pause();
    }
  }
  const flagsCheckedWith = await flagChunks(env, scope, drafts, results, parent);

  const ids = drafts.map(() => crypto.randomUUID());
  const embedded = new Set(toEmbed);
  const chunks = drafts.map((draft, i): NewChunk => ({
    ...draftColumns(draft, ids),
    id: ids[i],
    variantId: variant.id,
    ...dedupColumns(results[i]),
    embeddingCopied: !embedded.has(i),
    injectionFlagged: isFlagged(draft.metadata.injection),
  }));
  return {
    chunks,
    vectors: vectors as Float32Array[],
    parentVersionId: parent?.versionId ?? null,
    pagesProcessed: document.pageCount,
    pagesSaved: 0,
    embeddingsComputed: toEmbed.length,
    embeddingsReused: drafts.length - toEmbed.length,
    flagsCheckedWith,
  };
}

async function parentIndex(chunks: ParentChunk[], slice: TimeSlice): Promise<ParentIndex> {
  const builder = new ParentIndexBuilder(chunks.length);
  for (const chunk of chunks) {
    builder.add(chunk);
    await slice.pause();
  }
  return builder.finish(chunks);
}

/** `run` over batches of about EMBED_BATCH_CHARS characters (at least one text each), a turn of the event loop after each. */
async function inBatches<T>(run: (texts: string[]) => Promise<T[]>, texts: string[], afterBatch?: (done: number) => void): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < texts.length; ) {
    let end = start + 1;
    for (let chars = texts[start].length; end < texts.length && chars + texts[end].length <= EMBED_BATCH_CHARS; end++) chars += texts[end].length;
    out.push(...(await run(texts.slice(start, end))));
    await new Promise((resolve) => setImmediate(resolve));
    afterBatch?.(out.length);
    start = end;
  }
  return out;
}

/** A flagged chunk: the proxy would block its text as a document (search and exclude_flagged leave it out). */
const isFlagged = (injection: ChunkInjection | undefined) => injection?.verdict === "block";

/**
 * Sets each draft's metadata.injection. A chunk reused exactly from the parent version, with the very
 * same text, keeps its parent chunk's verdict (as it keeps its vector); every other chunk is scanned
 * (with the firewall off, only the carried verdicts are set). Same text, not just the same
 * dedup-normalised text: normalising drops case and some invisible characters, which an injection
 * can hide in. Returns the fingerprint of the patterns every flag was scanned with (null when they
 * were not all scanned with the same ones: the variant is then scanned again, flag-rescans.ts).
 */
async function flagChunks(env: JobEnv, scope: WorkspaceScope, drafts: ChunkDraft[], results: DedupResult[], parent: ParentChunks | null): Promise<string | null> {
  const toScan: number[] = [];
  drafts.forEach((draft, i) => {
    const source = results[i].is_reused && results[i].dedup_source_chunk_id ? parent?.carried.get(results[i].dedup_source_chunk_id) : undefined;
    if (source?.injection && source.text === draft.text) draft.metadata.injection = source.injection;
    else toScan.push(i);
  });
  const carriedWith = toScan.length < drafts.length ? (parent?.flagsCheckedWith ?? null) : undefined;
  if (!env.chunkFlags) return null;
  if (toScan.length === 0) return carriedWith ?? null;
  const scans = await scanChunkFlags(env.chunkFlags, scope, toScan.map((i) => drafts[i].text), () => env.checkpoint());
  toScan.forEach((i, k) => (drafts[i].metadata.injection = scans[k]!.injection));
  const checkedWith = scannedWith(scans);
  return carriedWith === undefined || carriedWith === checkedWith ? checkedWith : null;
}

async function parseStored(env: JobEnv, scope: WorkspaceScope, document: DocumentRow): Promise<ParsedDocument> {
  const bytes = await readBlob(scope, document.contentHash);
  if (!bytes) throw new Error(`the stored bytes of ${document.filename} are missing`);
  return env.parse(document.filename, bytes, document.mimeType);
}

/** `prefixes`: each parent chunk's embedded_text_prefix (undefined without contextual_prefix); `carried`: its text and chunk flag, scanned with `flagsCheckedWith`. */
type ParentChunks = {
  versionId: string;
  flagsCheckedWith: string | null;
  chunks: ParentChunk[];
  vectors: Map<string, Float32Array>;
  prefixes: Map<string, string | undefined>;
  carried: Map<string, { text: string; injection: ChunkInjection | undefined }>;
};

/** The parent version's chunks (same configuration) with their vectors, processing them first if needed. */
async function parentChunks(env: JobEnv, scope: WorkspaceScope, parentVersionId: string, config: ChunkingConfig): Promise<ParentChunks> {
  const source = await completedVariant(env, scope, parentVersionId, config, "the parent version's");
  const vectors = await readVectors(scope, source.id);
  const rows = await readChunks(scope, source.id);
  const chunks = rows.map((row) => ({ id: row.id, text: row.text, embedding: vectors.get(row.id) ?? null }));
  return {
    versionId: parentVersionId,
    flagsCheckedWith: source.flagsCheckedWith,
    chunks,
    vectors,
    prefixes: new Map(rows.map((row) => [row.id, row.metadata.embedded_text_prefix])),
    carried: new Map(rows.map((row) => [row.id, { text: row.text, injection: row.metadata.injection }])),
  };
}

/**
 * What is embedded: the contextual prefix (document › section › subsection) when the variant asks
 * for it, then an orphan table's synthetic context, so a chunk can be found by what it is about.
 */
function embeddingInput(draft: ChunkDraft): string {
  return [draft.metadata.embedded_text_prefix, draft.synthetic_context, draft.text].filter((part) => part).join("\n\n");
}

/** The document's title (its file name without the extension) and the chunk's section path. */
function contextualPrefix(filename: string, sections: string[]): string {
  const title = filename.replace(/\.[^.]+$/, "");
  return [title, ...sections].join(" › ");
}

function draftColumns(draft: ChunkDraft, ids: string[]): Omit<NewChunk, "id" | "variantId" | keyof ReturnType<typeof dedupColumns> | "embeddingCopied"> {
  return {
    chunkIndex: draft.chunk_index,
    text: draft.text,
    textHash: createHash("sha256").update(normaliseText(draft.text)).digest("hex"),
    pageNumber: draft.page_number,
    pageRange: draft.page_range,
    sectionHierarchy: draft.section_hierarchy,
    tokens: draft.tokens,
    metadata: draft.metadata,
    chunkType: draft.chunk_type,
    containsTable: draft.contains_table,
    tableMetadata: draft.table_metadata,
    chunkingStrategy: draft.chunking_strategy,
    sectionNumber: draft.section_number,
    qualityScore: draft.quality_score,
    syntheticContext: draft.synthetic_context,
    parentChunkId: draft.parent_index === null ? null : ids[draft.parent_index],
    boundingBox: draft.bounding_box,
  };
}
