/**
 * Back-pressure on document work. Jobs run one at a time, so a client (or a tenant) sending
 * uploads faster than they are processed would otherwise pile up pending work without end. Two
 * bounds, checked before an upload's body is read:
 * - per workspace: its pending and processing variants (the database's count, so it holds across
 *   a fleet) plus its uploads in progress on this server, at most `perWorkspace`: 429;
 * - per server: this server's queued, parked and running jobs plus its uploads in progress, at most
 *   `perServer`: 503.
 * Both answer with Retry-After (about one job's time). Uploads in progress are also held to
 * UPLOAD_SLOTS at once, the others wait unread (Bun leaves an unread body in the socket, so a
 * waiting upload costs no memory) for at most SLOT_WAIT_MS, then get the 503. Concurrent
 * uploads may overshoot a bound by the uploads that passed its check at the same moment.
 */
import { inArray } from "drizzle-orm";
import { httpError } from "../http/errors";
import type { DocumentMetrics } from "../metrics/documents";
import type { WorkspaceScope } from "../tenancy/scope";
import { documentVariants } from "./schema";

/** Uploads read and parsed at once: parses run one at a time anyway, so more would only hold bodies in memory. */
export const UPLOAD_SLOTS = 4;
/** The longest an upload waits for a slot before it is told to come back. */
export const SLOT_WAIT_MS = 10_000;

export type AdmissionLimits = { perWorkspace: number; perServer: number };

/** What the server's job queue tells admission. */
export type JobQueueState = { depth: { queued: number; parked: number; running: number }; averageJobMs: number };

export class DocumentAdmission {
  readonly #limits: AdmissionLimits;
  readonly #jobs: JobQueueState;
  readonly #metrics: DocumentMetrics;
  /** Uploads in progress on this server (waiting for a slot or holding one), by workspace. */
  readonly #uploads = new Map<string, number>();
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limits: AdmissionLimits, jobs: JobQueueState, metrics: DocumentMetrics) {
    this.#limits = limits;
    this.#jobs = jobs;
    this.#metrics = metrics;
  }

  /** Uploads in progress on this server: reading, parsing or waiting for a slot. */
  get uploadsInProgress(): number {
    let total = 0;
    for (const n of this.#uploads.values()) total += n;
    return total;
  }

  /** Throws 429/503 when the workspace's or the server's document work is at its bound. */
  async checkQueue(scope: WorkspaceScope): Promise<void> {
    const { queued, parked, running } = this.#jobs.depth;
    if (queued + parked + running + this.uploadsInProgress >= this.#limits.perServer) {
      this.#metrics.refused("server_queue_full");
      throw httpError(
        503,
        "document_queue_full",
        `this server has ${this.#limits.perServer} documents waiting to be processed (--max-pending-documents); retry after the Retry-After seconds`,
        this.#retryAfter(),
      );
    }
    const pending = await scope.count(documentVariants, inArray(documentVariants.status, ["pending", "processing"]));
    if (pending + (this.#uploads.get(scope.workspaceId) ?? 0) >= this.#limits.perWorkspace) {
      this.#metrics.refused("workspace_queue_full");
      throw httpError(
        429,
        "too_many_pending_documents",
        `this workspace has ${this.#limits.perWorkspace} documents waiting to be processed (--max-pending-documents-per-workspace); retry after the Retry-After seconds, or watch the documents' status`,
        this.#retryAfter(),
      );
    }
  }

  /**
   * Admits one upload: checks the bounds, then waits for an upload slot. Returns the function that
   * ends the upload's turn (call it once its job is queued, or it failed); throws 429/503.
   */
  async enterUpload(scope: WorkspaceScope): Promise<() => void> {
    await this.checkQueue(scope);
    const workspaceId = scope.workspaceId;
    this.#uploads.set(workspaceId, (this.#uploads.get(workspaceId) ?? 0) + 1);
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      const n = this.#uploads.get(workspaceId)! - 1;
      if (n === 0) this.#uploads.delete(workspaceId);
      else this.#uploads.set(workspaceId, n);
    };
    if (!(await this.#takeSlot())) {
      leave();
      this.#metrics.refused("upload_slot_timeout");
      throw httpError(
        503,
        "uploads_busy",
        `${UPLOAD_SLOTS} uploads are being read and parsed and others waited ${SLOT_WAIT_MS / 1000} s for their turn; retry after the Retry-After seconds`,
        this.#retryAfter(),
      );
    }
    return () => {
      if (left) return;
      leave();
      this.#releaseSlot();
    };
  }

  async #takeSlot(): Promise<boolean> {
    if (this.#running < UPLOAD_SLOTS) {
      this.#running++;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const turn = () => {
        clearTimeout(timer);
        this.#running++;
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(turn), 1);
        resolve(false);
      }, SLOT_WAIT_MS);
      this.#waiting.push(turn);
    });
  }

  #releaseSlot(): void {
    this.#running--;
    this.#waiting.shift()?.();
  }

  #retryAfter(): Record<string, string> {
    return { "retry-after": String(Math.min(60, Math.max(1, Math.ceil(this.#jobs.averageJobMs / 1000)))) };
  }
}
