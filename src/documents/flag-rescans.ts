/**
 * Chunk flags follow the workspace's patterns. Each completed variant remembers the patterns its
 * chunk flags were scanned with (`flags_checked_with`, a fingerprint of the built-ins the workspace
 * has on with its own actions and thresholds, and of its custom patterns). When a workspace changes
 * its patterns (on this instance or another), and at every start, its completed variants with
 * another fingerprint are scanned again, one at a time, by the document worker when it has no
 * upload to process, at bulk priority; an upload that arrives meanwhile goes first, and the
 * variant's rescan then goes on where it stopped. A variant keeps its old flags until its new ones
 * are written, all in one transaction. On a shared database a rescan is claimed with the variant's lease, as a
 * job is (leases.ts): two instances never scan the same variant at once, and a rescan whose
 * instance died is found by the other instances' orphan scan.
 */
import { asc, eq, gt, isNull, lt, ne, or } from "drizzle-orm";
import type { Logger } from "../logging/logger";
import type { WorkspaceScope } from "../tenancy/scope";
import type { ChunkInjection } from "./chunking";
import { readChunks } from "./chunk-store";
import type { JobLeases } from "./leases";
import { JobAborted, scanChunkFlags, scannedWith, type ChunkFlagScanner, type ScannedChunk } from "./processing";
import { documentChunks, documentVariants } from "./schema";

export type FlagRescanEnv = {
  log: Logger;
  flags: ChunkFlagScanner;
  leases: JobLeases;
  /** A scope for the workspace. */
  scope: (workspaceId: string) => WorkspaceScope;
  /** Every workspace with completed variants (the one query across workspaces). */
  workspacesWithDocuments: () => Promise<string[]>;
  /** Throws JobAborted when the server is stopping. */
  checkpoint: () => void;
  /** An upload waits for the worker: the rescan steps aside after its current batch. */
  uploadWaiting: () => boolean;
};

/** The rescan stepped aside for an upload; its progress is kept. */
class SteppedAside extends Error {}

export class FlagRescans {
  /**
   * Workspaces whose variants may carry flags of other patterns, each with how far its pass has
   * come (variant ids in ascending order: a pass visits each variant at most once, so two
   * instances that disagreed on a fingerprint could not scan the same variants back and forth).
   */
  readonly #due = new Map<string, { after: string }>();
  /** Every workspace's variants may. */
  #everyWorkspace = false;
  /** The verdicts of a rescan that stepped aside for an upload (a completed variant's chunks never change). */
  #stepped: { variantId: string; scans: ScannedChunk[] } | undefined;

  constructor(private readonly env: FlagRescanEnv) {}

  /** A workspace's patterns changed (null: maybe any workspace's, or the server started). */
  request(workspaceId: string | null): void {
    if (workspaceId === null) this.#everyWorkspace = true;
    else this.#due.set(workspaceId, { after: "" }); // a new pass, from the start
  }

  get pending(): boolean {
    return this.#everyWorkspace || this.#due.size > 0;
  }

  /** Scans one variant again if one is due; false when none is left. */
  async runOne(): Promise<boolean> {
    if (this.#everyWorkspace) {
      this.#everyWorkspace = false;
      for (const workspaceId of await this.env.workspacesWithDocuments()) this.#due.set(workspaceId, { after: "" });
    }
    for (const [workspaceId, pass] of this.#due) {
      try {
        const visited = await this.#rescanNext(this.env.scope(workspaceId), pass.after);
        if (visited !== undefined) {
          pass.after = visited;
          return true;
        }
      } catch (error) {
        if (error instanceof SteppedAside) return true; // the same variant again, after the upload
        if (error instanceof JobAborted) throw error;
        // Tried again on the workspace's next pattern change, or the next start.
        this.env.log.warn("chunk flags: scanning a variant again failed", { workspace_id: workspaceId, error: (error as Error).message });
      }
      // Through (unless a new pass was asked for meanwhile).
      if (this.#due.get(workspaceId) === pass) this.#due.delete(workspaceId);
    }
    return false;
  }

  /**
   * The workspace's next variant (by id, after `after`) scanned with other patterns, scanned again
   * unless another instance holds it; its id, or undefined when the pass is through.
   */
  async #rescanNext(scope: WorkspaceScope, after: string): Promise<string | undefined> {
    const current = await this.env.flags.current(scope);
    const now = new Date();
    const { id, status, flagsCheckedWith, leaseUntil, leaseOwner } = documentVariants;
    const stale = or(isNull(flagsCheckedWith), ne(flagsCheckedWith, current));
    const free = or(isNull(leaseUntil), lt(leaseUntil, now), eq(leaseOwner, this.env.leases.owner));
    const [variant] = await scope.select(documentVariants, gt(id, after), eq(status, "completed"), stale, free).orderBy(asc(id)).limit(1);
    if (!variant) return undefined;
    const claimed = await scope
      .update(documentVariants, { leaseOwner: this.env.leases.owner, leaseUntil: new Date(now.getTime() + this.env.leases.leaseMs) }, eq(id, variant.id), eq(status, "completed"), stale, free)
      .returning({ id });
    if (claimed.length === 0) return variant.id; // taken or changed meanwhile
    const heartbeat = this.env.leases.keepAlive(scope, variant.id);
    try {
      await this.#rescan(scope, variant.id, variant.flagsCheckedWith);
    } catch (error) {
      await this.env.leases.release(scope, variant.id).catch(() => {});
      throw error;
    } finally {
      heartbeat.stop();
    }
    return variant.id;
  }

  async #rescan(scope: WorkspaceScope, variantId: string, checkedBefore: string | null): Promise<void> {
    const chunks = await readChunks(scope, variantId);
    const resumed = this.#stepped?.variantId === variantId ? this.#stepped : undefined;
    if (resumed) this.#stepped = undefined;
    const scans = resumed?.scans ?? [];
    const stepAside = () => {
      this.env.checkpoint();
      if (this.env.uploadWaiting() && scans.length < chunks.length) {
        this.#stepped = { variantId, scans };
        throw new SteppedAside();
      }
    };
    await scanChunkFlags(this.env.flags, scope, chunks.slice(scans.length).map((chunk) => chunk.text), stepAside, scans);
    // Patterns that changed while this ran leave null: the variant is scanned again on the next pass.
    const checkedWith = chunks.length === 0 ? await this.env.flags.current(scope) : scannedWith(scans);
    const flagged = scans.filter((scan) => scan.injection.verdict === "block").length;
    const changed = chunks.flatMap((chunk, i) => (sameInjection(chunk.metadata.injection, scans[i]!.injection) ? [] : [{ chunk, injection: scans[i]!.injection }]));
    await scope.transaction(async (tx) => {
      const written = await tx
        .update(documentVariants, { flaggedChunks: flagged, flagsCheckedWith: checkedWith, leaseOwner: null, leaseUntil: null }, eq(documentVariants.id, variantId), eq(documentVariants.status, "completed"), eq(documentVariants.leaseOwner, this.env.leases.owner))
        .returning({ id: documentVariants.id });
      if (written.length === 0) return; // deleted meanwhile, or its lease lost to another instance
      for (const { chunk, injection } of changed) {
        await tx.update(documentChunks, { metadata: { ...chunk.metadata, injection }, injectionFlagged: injection.verdict === "block" }, eq(documentChunks.id, chunk.id));
      }
    });
    this.env.log.info("chunk flags scanned again", { variant_id: variantId, chunks: chunks.length, changed: changed.length, flagged, checked_with: checkedWith, checked_before: checkedBefore });
  }
}

function sameInjection(a: ChunkInjection | undefined, b: ChunkInjection): boolean {
  return a !== undefined && a.verdict === b.verdict && a.score === b.score && a.family === b.family && a.window?.offset === b.window?.offset;
}

