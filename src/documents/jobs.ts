/**
 * The document job queue: one worker per server runs variant jobs one at a time (embedding is
 * CPU-bound; two at once would only share the cores). The queue itself is not durable and
 * need not be: the durable state is each variant's status column, and `resume` re-queues every
 * pending or processing variant when the server starts. On a shared database (fleet mode) any
 * instance may run any job: each claims it with a lease (leases.ts), and every instance looks for
 * jobs nobody runs (left pending, or whose lease ran out because its instance died) every few seconds.
 * A job that builds on another instance's job (a duplicate of a canonical still being processed
 * there, a version whose parent is) is parked: pending, its lease kept alive here, and run again
 * once that job is completed, failed or deleted, or its lease runs out. The worker meanwhile runs
 * other jobs. (On one instance a job never waits like this: its source runs in the same worker.)
 */
import { and, eq, inArray, isNull, lt, or } from "drizzle-orm";
import type { AppContext } from "../runtime/context";
import { WorkspaceScope } from "../tenancy/scope";
import type { ParsedDocument } from "./parsing";
import { JobAborted, runVariantJob, VariantDeleted, type ChunkFlagScanner, type JobEnv } from "./processing";
import { documentVariants } from "./schema";
import { DocumentParser } from "./document-parser";
import { JobLeases } from "./leases";
import { DocumentAdmission } from "./admission";
import type { DocumentWork } from "../metrics/documents";
import { firewallService } from "../firewall/service";
import { FlagRescans } from "./flag-rescans";
import type { FlagsCurrent } from "./views";

type Job = { workspaceId: string; variantId: string };

/**
 * An upload's parse, kept so its job need not parse the stored bytes again. Parsed blocks take
 * about twice the file's size in memory, so only so many are kept: past the budget a job parses
 * its stored bytes (the database holds every pending upload's file; memory holds none of them).
 */
const PARSE_HINT_BUDGET_BYTES = 32 * 1024 * 1024;
type ParseHint = { document: ParsedDocument; fileBytes: number };

/** A first guess at a job's time, before this server has run one. */
const FIRST_JOB_ESTIMATE_MS = 2_000;

/** How long `stop` waits for the running job to reach a checkpoint. */
const STOP_WAIT_MS = 10_000;

/** Fleet mode: a job's lease (extended by a heartbeat every third of it), and how often instances look for orphaned jobs. */
const LEASE_MS = 15_000;
const ORPHAN_SCAN_MS = 3_000;
/** How often an instance with parked jobs looks whether the jobs they wait for have settled. */
const WAITING_CHECK_MS = 500;

type Parked = { workspaceId: string; sourceVariantId: string; heartbeat: { stop(): void } };

export class DocumentJobs {
  readonly #ctx: AppContext;
  readonly #queue: Job[] = [];
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #hints = new Map<string, ParseHint>();
  #hintBytes = 0;
  /** Recent jobs' wall time (an exponential moving average): what a client told to come back waits for one job. */
  #averageJobMs = FIRST_JOB_ESTIMATE_MS;
  readonly #env: JobEnv;
  /** Chunk flags scanned again after a workspace changed its patterns (when the worker has no job); undefined with chunk flags off. */
  readonly #rescans: FlagRescans | undefined;
  /** Every parse of this server, at upload or in a job. */
  readonly parser: DocumentParser;
  /** Back-pressure: who may add work to this queue. */
  readonly admission: DocumentAdmission;
  #worker: Promise<void> | undefined;
  /** The variant whose job the worker runs, and whether its document was deleted meanwhile. */
  #running: string | undefined;
  #runningDeleted = false;
  #stopping = false;
  /** The embedding model failed to load: the worker does not start again (until a restart). */
  #embedderFailed = false;
  #orphanScan: Timer | undefined;
  /** Parked jobs (variant id → what it waits for), and the timer that checks on them. */
  readonly #parked = new Map<string, Parked>();
  #waitingCheck: Timer | undefined;
  #checking = false;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.parser = new DocumentParser(ctx.config, ctx.log);
    this.admission = new DocumentAdmission(
      { perWorkspace: ctx.config.maxPendingDocumentsPerWorkspace, perServer: ctx.config.maxPendingDocuments },
      this,
      ctx.metrics.documents,
    );
    this.#env = {
      log: ctx.log,
      // A parse cut short by stop() is not a failed attempt: the variant resumes on the next start.
      parse: (filename, bytes, mimeType) =>
        this.parser.parse(filename, bytes, mimeType).catch((error: unknown) => {
          this.#env.checkpoint();
          throw error;
        }),
      embedder: () => ctx.embedder.loaded,
      // Bulk: every request-path text (firewall, cache, /v1/embeddings) is served before a document's chunks.
      embedTexts: async (texts) => (await ctx.embedder.loaded).embedMany(texts, { priority: "bulk" }),
      // Chunk flags: the firewall's data channel on every new chunk, with the workspace's own patterns and switches.
      chunkFlags: this.#chunkFlags("new"),
      checkpoint: () => {
        if (this.#stopping) throw new JobAborted("server stopping");
        if (this.#runningDeleted) throw new VariantDeleted();
      },
      takeParsed: (versionId) => this.#takeHint(versionId)?.document,
      settled: (variantId) => this.#settled(variantId),
      waitFor: (workspaceId, variantId, sourceVariantId) => this.#park(workspaceId, variantId, sourceVariantId),
      leases: new JobLeases(ctx.database.shared ? crypto.randomUUID() : "local", LEASE_MS),
    };
    const rescanFlags = this.#chunkFlags("rescan");
    if (rescanFlags) {
      const rescans = new FlagRescans({
        log: ctx.log,
        flags: rescanFlags,
        leases: this.#env.leases,
        scope: (workspaceId) => new WorkspaceScope(ctx.database, workspaceId),
        workspacesWithDocuments: async () =>
          (await ctx.database.db.selectDistinct({ workspaceId: documentVariants.workspaceId }).from(documentVariants).where(eq(documentVariants.status, "completed"))).map((row) => row.workspaceId),
        checkpoint: () => {
          if (this.#stopping) throw new JobAborted("server stopping");
        },
        uploadWaiting: () => this.#queue.length > 0,
      });
      firewallService(ctx).onPatternsChanged((workspaceId) => {
        rescans.request(workspaceId);
        this.#startWorker();
      });
      this.#rescans = rescans;
    }
  }

  /** The firewall's data channel on chunk texts, counted by why they are scanned; undefined when the firewall or its chunk check is off. */
  #chunkFlags(reason: "new" | "rescan"): ChunkFlagScanner | undefined {
    if (!this.#ctx.config.firewall || !this.#ctx.config.firewallDocumentChunks) return undefined;
    const firewall = firewallService(this.#ctx);
    return {
      scan: async (scope, texts) => {
        const scanned = await firewall.scanDocumentTexts(scope, texts);
        this.#ctx.metrics.documents.chunksScanned(reason, texts.length);
        return scanned;
      },
      current: (scope) => firewall.chunkPatternsFingerprint(scope),
    };
  }

  /**
   * Whether a variant's chunk flags were scanned with the workspace's current patterns; null with
   * chunk flags off, for a variant not completed, or while the firewall's patterns are loading.
   */
  async flagsCurrent(scope: WorkspaceScope): Promise<FlagsCurrent> {
    const current = this.#rescans ? await firewallService(this.#ctx).chunkPatternsFingerprintIfReady(scope) : undefined;
    return (variant) => (current === undefined || variant.status !== "completed" ? null : variant.flagsCheckedWith === current);
  }

  /** Queues a variant; `parsed` (the upload's parse) may save the job from parsing the stored bytes again. */
  enqueue(workspaceId: string, variantId: string, parsed?: { versionId: string; document: ParsedDocument; fileBytes: number }): void {
    if (this.#stopping) return;
    if (parsed && this.#hintBytes + parsed.fileBytes <= PARSE_HINT_BUDGET_BYTES) {
      this.#takeHint(parsed.versionId);
      this.#hints.set(parsed.versionId, { document: parsed.document, fileBytes: parsed.fileBytes });
      this.#hintBytes += parsed.fileBytes;
    }
    if (this.#queue.some((job) => job.variantId === variantId)) return;
    this.#queue.push({ workspaceId, variantId });
    this.#startWorker();
  }

  /**
   * On start: queue every variant left pending or processing by the last run, oldest first.
   * The one query across workspaces; each job then runs in its own workspace's scope.
   */
  async resume(): Promise<number> {
    const unfinished = await this.#ctx.database.db
      .select({ variantId: documentVariants.id, workspaceId: documentVariants.workspaceId })
      .from(documentVariants)
      .where(inArray(documentVariants.status, ["pending", "processing"]))
      .orderBy(documentVariants.createdAt);
    for (const job of unfinished) this.enqueue(job.workspaceId, job.variantId);
    if (unfinished.length > 0) this.#ctx.log.info("resuming document jobs", { count: unfinished.length });
    // Patterns may have changed while this server was down (another instance, or chunk flags switched on).
    this.#rescans?.request(null);
    this.#startWorker();
    if (this.#ctx.database.shared) this.#scanForOrphans();
    return unfinished.length;
  }

  /** Fleet mode: queue jobs nobody runs — pending for a while (their instance died before claiming) or with an expired lease. */
  #scanForOrphans(): void {
    this.#orphanScan = setInterval(async () => {
      if (this.#stopping || this.#queue.length > 0) return;
      const now = Date.now();
      const { status, leaseUntil, createdAt } = documentVariants;
      try {
        const orphans = await this.#ctx.database.db
          .select({ variantId: documentVariants.id, workspaceId: documentVariants.workspaceId })
          .from(documentVariants)
          .where(
            and(
              // A pending job with a live lease is parked by its instance, waiting for another job.
              or(isNull(leaseUntil), lt(leaseUntil, new Date(now))),
              or(and(eq(status, "pending"), lt(createdAt, new Date(now - ORPHAN_SCAN_MS))), eq(status, "processing")),
            ),
          )
          .orderBy(createdAt)
          .limit(10);
        for (const job of orphans) this.enqueue(job.workspaceId, job.variantId);
        // A completed variant with an expired lease: its rescan's instance died (flag-rescans.ts).
        const abandoned = this.#rescans
          ? await this.#ctx.database.db
              .selectDistinct({ workspaceId: documentVariants.workspaceId })
              .from(documentVariants)
              .where(and(eq(status, "completed"), lt(leaseUntil, new Date(now))))
          : [];
        for (const { workspaceId } of abandoned) this.#rescans!.request(workspaceId);
        if (abandoned.length > 0) this.#startWorker();
      } catch (error) {
        this.#ctx.log.warn("document jobs: looking for orphaned jobs failed", { error: (error as Error).message });
      }
    }, ORPHAN_SCAN_MS);
  }

  /**
   * The variants' documents were deleted: their queued jobs leave the queue, and a running one stops
   * at its next checkpoint, so deleting a backlog frees the worker at once. (On another instance of a
   * fleet, a job notices only when it writes.)
   */
  forget(variantIds: readonly string[]): void {
    const deleted = new Set(variantIds);
    for (let i = this.#queue.length - 1; i >= 0; i--) if (deleted.has(this.#queue[i]!.variantId)) this.#queue.splice(i, 1);
    if (this.#running && deleted.has(this.#running)) this.#runningDeleted = true;
    for (const id of deleted) this.#settled(id);
  }

  /** Jobs waiting in this server's queue, and jobs parked behind another instance's (fleet mode). */
  get depth(): { queued: number; parked: number; running: number } {
    return { queued: this.#queue.length, parked: this.#parked.size, running: this.#running ? 1 : 0 };
  }

  /** What /metrics reports of this server's document work. */
  get work(): DocumentWork {
    return { ...this.depth, uploadsInProgress: this.admission.uploadsInProgress, keptParseBytes: this.#hintBytes };
  }

  /** About how long until this server finishes its current job (the recent average job time). */
  get averageJobMs(): number {
    return this.#averageJobMs;
  }

  #takeHint(versionId: string): ParseHint | undefined {
    const hint = this.#hints.get(versionId);
    if (hint) {
      this.#hints.delete(versionId);
      this.#hintBytes -= hint.fileBytes;
    }
    return hint;
  }

  /** Resolves when the variant is completed, failed or deleted, or after `timeoutMs`, whichever comes first. */
  waitFor(variantId: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(variantId) ?? new Set();
      this.#waiters.set(variantId, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.#waiters.get(variantId) === waiters) this.#waiters.delete(variantId);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      waiters.add(done);
    });
  }

  /**
   * Stops taking jobs and ends the parser's thread; the running job stops at its next checkpoint (or
   * as its parse is cut short) and stays `processing` for the next start.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#orphanScan);
    clearInterval(this.#waitingCheck);
    this.#queue.length = 0;
    this.parser.stop();
    if (this.#worker) await Promise.race([this.#worker, Bun.sleep(STOP_WAIT_MS)]);
    // Parked jobs stay pending; their leases are given up so another instance (or the next start) takes them at once.
    const parked = [...this.#parked];
    this.#parked.clear();
    await Promise.allSettled(
      parked.map(([variantId, { workspaceId, heartbeat }]) => {
        heartbeat.stop();
        return this.#env.leases.release(new WorkspaceScope(this.#ctx.database, workspaceId), variantId);
      }),
    );
  }

  /** A job waits for another instance's job: its lease is kept alive here until that job settles (or nobody runs it). */
  #park(workspaceId: string, variantId: string, sourceVariantId: string): void {
    this.#parked.get(variantId)?.heartbeat.stop();
    if (this.#stopping) return;
    const heartbeat = this.#env.leases.keepAlive(new WorkspaceScope(this.#ctx.database, workspaceId), variantId);
    this.#parked.set(variantId, { workspaceId, sourceVariantId, heartbeat });
    this.#waitingCheck ??= setInterval(() => void this.#checkParked(), WAITING_CHECK_MS);
  }

  /** Runs a parked job again. */
  #unpark(variantId: string): void {
    const parked = this.#parked.get(variantId);
    if (!parked) return;
    parked.heartbeat.stop();
    this.#parked.delete(variantId);
    if (this.#parked.size === 0) {
      clearInterval(this.#waitingCheck);
      this.#waitingCheck = undefined;
    }
    this.enqueue(parked.workspaceId, variantId);
  }

  /** Parked jobs whose source is completed, failed or deleted, or has no live lease any more (its instance died), run again. */
  async #checkParked(): Promise<void> {
    if (this.#checking || this.#parked.size === 0) return;
    this.#checking = true;
    try {
      const sourceIds = [...new Set([...this.#parked.values()].map((parked) => parked.sourceVariantId))];
      const rows = await this.#ctx.database.db
        .select({ id: documentVariants.id, status: documentVariants.status, leaseUntil: documentVariants.leaseUntil })
        .from(documentVariants)
        .where(inArray(documentVariants.id, sourceIds));
      const now = Date.now();
      const busy = new Set(
        rows.filter((row) => (row.status === "pending" || row.status === "processing") && row.leaseUntil !== null && row.leaseUntil.getTime() >= now).map((row) => row.id),
      );
      for (const [variantId, parked] of [...this.#parked]) if (!busy.has(parked.sourceVariantId)) this.#unpark(variantId);
    } catch (error) {
      this.#ctx.log.warn("document jobs: checking on waiting jobs failed", { error: (error as Error).message });
    } finally {
      this.#checking = false;
    }
  }

  #startWorker(): void {
    if (this.#worker || this.#stopping) return;
    this.#worker = this.#drain().finally(() => {
      this.#worker = undefined;
      // Jobs queued (or rescans requested) while the last one was finishing.
      if (!this.#embedderFailed && (this.#queue.length > 0 || this.#rescans?.pending)) this.#startWorker();
    });
  }

  async #drain(): Promise<void> {
    try {
      await this.#ctx.embedder.loaded;
    } catch {
      this.#embedderFailed = true;
      this.#ctx.log.error("document jobs wait: the embedding model failed to load; variants stay pending until a restart");
      return;
    }
    while (!this.#stopping) {
      const job = this.#queue.shift();
      if (!job) {
        // No upload waits: scan one variant's chunk flags again, if any is due, then look at the queue again.
        if (await this.#rescanOne()) continue;
        break;
      }
      const started = performance.now();
      this.#running = job.variantId;
      this.#runningDeleted = false;
      try {
        await runVariantJob(this.#env, new WorkspaceScope(this.#ctx.database, job.workspaceId), job.variantId);
        this.#averageJobMs = 0.8 * this.#averageJobMs + 0.2 * (performance.now() - started);
        // Flags it copied (a duplicate's, a parent's) may have been scanned with other patterns.
        this.#rescans?.request(job.workspaceId);
      } catch (error) {
        if (error instanceof JobAborted) return;
        this.#ctx.log.error("document job crashed", { variant_id: job.variantId, error });
      } finally {
        this.#running = undefined;
      }
    }
    // Idle: parses kept for jobs that never ran (their variant was deleted) are not needed any more.
    if (this.#queue.length === 0) {
      this.#hints.clear();
      this.#hintBytes = 0;
    }
  }

  /** One due rescan of chunk flags; false when none is left (or it was cut short by stop). */
  async #rescanOne(): Promise<boolean> {
    try {
      return (await this.#rescans?.runOne()) ?? false;
    } catch (error) {
      if (!(error instanceof JobAborted)) this.#ctx.log.error("chunk flag rescan crashed", { error });
      return false;
    }
  }

  #settled(variantId: string): void {
    for (const resolve of [...(this.#waiters.get(variantId) ?? [])]) resolve();
    // Jobs of this instance parked behind this one (a job nested in another instance's chain).
    for (const [parkedId, parked] of [...this.#parked]) if (parked.sourceVariantId === variantId) this.#unpark(parkedId);
  }
}

const registry = new WeakMap<AppContext, DocumentJobs>();

/** The job queue of one running app (the controller enqueues, server start resumes, server stop stops). */
export function documentJobs(ctx: AppContext): DocumentJobs {
  let jobs = registry.get(ctx);
  if (!jobs) registry.set(ctx, (jobs = new DocumentJobs(ctx)));
  return jobs;
}
