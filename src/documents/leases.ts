/**
 * Who runs a document job. A job is claimed with one conditional UPDATE (pending, or processing
 * with an expired lease or one of ours): of two instances racing for it, one wins. The winner's
 * heartbeat extends the lease while it works; if it dies (SIGKILL), the lease runs out and another
 * instance takes the job over. The final write checks the lease is still ours, so a job is never
 * completed twice. A job that must wait for another instance's job (its canonical's or parent's
 * variant) is parked: back to `pending` with the lease kept alive by the waiting instance, so no
 * other instance claims it meanwhile, and taken over like any other if that instance dies.
 */
import { eq, inArray, isNull, lt, or } from "drizzle-orm";
import type { WorkspaceScope } from "../tenancy/scope";
import type { VariantRow } from "./records";
import { documentVariants } from "./schema";

export class JobLeases {
  constructor(
    /** This process: a fixed name on SQLite (one process owns the file, a restart resumes its own jobs), a fresh one per instance on PostgreSQL. */
    readonly owner: string,
    readonly leaseMs: number,
  ) {}

  /** Takes the job if nobody else holds it; false when another instance's lease is live (running it, or parked waiting). */
  async claim(scope: WorkspaceScope, variant: VariantRow): Promise<boolean> {
    const now = Date.now();
    const claimed = await scope
      .update(
        documentVariants,
        { status: "processing", startedAt: new Date(now), attempts: variant.attempts + 1, error: null, leaseOwner: this.owner, leaseUntil: new Date(now + this.leaseMs) },
        eq(documentVariants.id, variant.id),
        inArray(documentVariants.status, ["pending", "processing"]),
        or(isNull(documentVariants.leaseUntil), lt(documentVariants.leaseUntil, new Date(now)), eq(documentVariants.leaseOwner, this.owner)),
      )
      .returning({ id: documentVariants.id });
    return claimed.length > 0;
  }

  /**
   * The claimed job waits for another variant: `pending` again, with the attempt it was claimed
   * with not counted, and the lease still ours (the waiter keeps it alive with `keepAlive`).
   */
  async park(scope: WorkspaceScope, variant: VariantRow): Promise<void> {
    await scope.update(
      documentVariants,
      { status: "pending", attempts: variant.attempts, startedAt: variant.startedAt, leaseUntil: new Date(Date.now() + this.leaseMs) },
      eq(documentVariants.id, variant.id),
      eq(documentVariants.leaseOwner, this.owner),
    );
  }

  /** Gives a parked job's lease up (graceful stop): any instance may take it at once. */
  async release(scope: WorkspaceScope, variantId: string): Promise<void> {
    await scope.update(documentVariants, { leaseOwner: null, leaseUntil: null }, eq(documentVariants.id, variantId), eq(documentVariants.leaseOwner, this.owner));
  }

  holds(variant: VariantRow): boolean {
    return variant.leaseOwner === this.owner;
  }

  /** Extends the lease every third of its length until stopped. */
  keepAlive(scope: WorkspaceScope, variantId: string): { stop(): void } {
    const timer = setInterval(() => {
      scope
        .update(documentVariants, { leaseUntil: new Date(Date.now() + this.leaseMs) }, eq(documentVariants.id, variantId), eq(documentVariants.leaseOwner, this.owner))
        .then(
          () => {},
          () => {}, // a missed beat only shortens the lease; the next one retries
        );
    }, this.leaseMs / 3);
    return { stop: () => clearInterval(timer) };
  }
}
