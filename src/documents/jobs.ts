/**
 * The document job queue: one worker per server runs variant jobs one at a time (embedding is
 * CPU-bound; two at once would only share the cores). The queue itself is not durable and
 * need not be: the durable state is each variant's status column, and `resume` re-queues every
 * pending or processing variant when the server starts. On a shared database (fleet mode) any
 * instance may run any job: each claims it with a lease (leases.ts), and every instance looks for
 * jobs nobody runs (left pending, or whose lease ran out because its instance died) every few seconds.
 */
import { and, eq, inArray, isNull, lt, or } from "drizzle-orm";
import type { AppContext } from "../runtime/context";
import { WorkspaceScope } from "../tenancy/scope";
import type { ParsedDocument } from "./parsing";
import { JobAborted, runVariantJob, type JobEnv } from "./processing";
import { documentVariants } from "./schema";
import { DocumentParser } from "./document-parser";
import { JobLeases } from "./leases";

type Job = { workspaceId: string; variantId: string };

/** How long `stop` waits for the running job to reach a checkpoint. */
const STOP_WAIT_MS = 10_000;

/** Fleet mode: a job's lease (extended by a heartbeat every third of it), and how often instances look for orphaned jobs. */
const LEASE_MS = 15_000;
const ORPHAN_SCAN_MS = 3_000;

export class DocumentJobs {
  readonly #ctx: AppContext;
  readonly #queue: Job[] = [];
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #hints = new Map<string, ParsedDocument>();
  readonly #env: JobEnv;
  /** Every parse of this server, at upload or in a job. */
  readonly parser: DocumentParser;
  #worker: Promise<void> | undefined;
  #stopping = false;
  #orphanScan: Timer | undefined;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.parser = new DocumentParser(ctx.config, ctx.log);
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
      checkpoint: () => {
        if (this.#stopping) throw new JobAborted("server stopping");
      },
      takeParsed: (versionId) => {
        const parsed = this.#hints.get(versionId);
        this.#hints.delete(versionId);
        return parsed;
      },
      settled: (variantId) => this.#settled(variantId),
      leases: new JobLeases(ctx.database.shared ? crypto.randomUUID() : "local", LEASE_MS),
    };
  }

  /** Queues a variant; `parsed` (the upload's parse) saves the job from parsing the stored bytes again. */
  enqueue(workspaceId: string, variantId: string, parsed?: { versionId: string; document: ParsedDocument }): void {
    if (this.#stopping) return;
    if (parsed) this.#hints.set(parsed.versionId, parsed.document);
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
            or(
              and(eq(status, "pending"), lt(createdAt, new Date(now - ORPHAN_SCAN_MS))),
              and(eq(status, "processing"), or(isNull(leaseUntil), lt(leaseUntil, new Date(now)))),
            ),
          )
          .orderBy(createdAt)
          .limit(10);
        for (const job of orphans) this.enqueue(job.workspaceId, job.variantId);
      } catch (error) {
        this.#ctx.log.warn("document jobs: looking for orphaned jobs failed", { error: (error as Error).message });
      }
    }, ORPHAN_SCAN_MS);
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
    this.#queue.length = 0;
    this.parser.stop();
    if (this.#worker) await Promise.race([this.#worker, Bun.sleep(STOP_WAIT_MS)]);
  }

  #startWorker(): void {
    if (this.#worker || this.#stopping) return;
    this.#worker = this.#drain().finally(() => {
      this.#worker = undefined;
      // Jobs queued while the last one was finishing.
      if (this.#queue.length > 0) this.#startWorker();
    });
  }

  async #drain(): Promise<void> {
    try {
      await this.#ctx.embedder.loaded;
    } catch {
      this.#ctx.log.error("document jobs wait: the embedding model failed to load; variants stay pending until a restart");
      return;
    }
    for (let job = this.#queue.shift(); job && !this.#stopping; job = this.#queue.shift()) {
      try {
        await runVariantJob(this.#env, new WorkspaceScope(this.#ctx.database, job.workspaceId), job.variantId);
      } catch (error) {
        if (error instanceof JobAborted) return;
        this.#ctx.log.error("document job crashed", { variant_id: job.variantId, error });
      }
    }
    // Idle: parses kept for jobs that never ran (their variant was deleted) are not needed any more.
    if (this.#queue.length === 0) this.#hints.clear();
  }

  #settled(variantId: string): void {
    for (const resolve of [...(this.#waiters.get(variantId) ?? [])]) resolve();
  }
}

const registry = new WeakMap<AppContext, DocumentJobs>();

/** The job queue of one running app (the controller enqueues, server start resumes, server stop stops). */
export function documentJobs(ctx: AppContext): DocumentJobs {
  let jobs = registry.get(ctx);
  if (!jobs) registry.set(ctx, (jobs = new DocumentJobs(ctx)));
  return jobs;
}
