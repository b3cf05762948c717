/**
 * Who runs a document job. A job is claimed with one conditional UPDATE (pending, or processing
 * with an expired lease or one of ours): of two instances racing for it, one wins. The winner's
 * heartbeat extends the lease while it works; if it dies (SIGKILL), the lease runs out and another
 * instance takes the job over. The final write checks the lease is still ours, so a job is never
 * completed twice.
 */
import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { WorkspaceScope } from "../tenancy/scope";
import type { VariantRow } from "./records";
import { documentVariants } from "./schema";

export class JobLeases {
  constructor(
    /** This process: a fixed name on SQLite (one process owns the file, a restart resumes its own jobs), a fresh one per instance on PostgreSQL. */
    readonly owner: string,
    readonly leaseMs: number,
  ) {}

  /** Takes the job if nobody else holds it; false when another instance's lease is live. */
  async claim(scope: WorkspaceScope, variant: VariantRow): Promise<boolean> {
    const now = Date.now();
    const claimed = await scope
      .update(
        documentVariants,
        { status: "processing", startedAt: new Date(now), attempts: variant.attempts + 1, error: null, leaseOwner: this.owner, leaseUntil: new Date(now + this.leaseMs) },
        eq(documentVariants.id, variant.id),
        or(
          eq(documentVariants.status, "pending"),
          and(
            eq(documentVariants.status, "processing"),
            or(isNull(documentVariants.leaseUntil), lt(documentVariants.leaseUntil, new Date(now)), eq(documentVariants.leaseOwner, this.owner)),
          ),
        ),
      )
      .returning({ id: documentVariants.id });
    return claimed.length > 0;
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
