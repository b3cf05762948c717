import { and, eq, lt, or, sql } from "drizzle-orm";
import type { WorkspaceScope } from "../tenancy/scope";
import { LIMIT_NAMES, type FileLimits, type LimitName, type Limits } from "./model";
import { usageCounters } from "./schema";

type Period = "minute" | "day" | "month";

/** One limit a request went past: which, whose, the allowance, what was used, and when its window starts again. */
export type Exceeded = { limit: LimitName; scope: "workspace" | "key"; max: number; used: number; resetAt: Date; soft: boolean };

/** A workspace or key with the limits in force for it (its own settings over the server's defaults). */
export type LimitedSubject = { scope: "workspace" | "key"; subject: string; limits: Partial<Record<LimitName, number>>; soft: boolean };

export type Admission = { refused: Exceeded | undefined; warnings: Exceeded[]; subjects: LimitedSubject[] };

const PERIOD_OF: Record<LimitName, Period> = { requests_per_minute: "minute", tokens_per_minute: "minute", spend_per_day_usd: "day", spend_per_month_usd: "month" };
/** Rows of windows long past are removed at most this often per workspace. */
const PURGE_EVERY_MS = 3_600_000;
const KEEP_MS: Record<Period, number> = { minute: 120_000, day: 2 * 86_400_000, month: 62 * 86_400_000 };

/** The UTC window of `period` that holds `now`: its start and the start of the next. */
export function windowOf(period: Period, now: number): { start: number; end: number } {
  if (period === "minute") {
    const start = Math.floor(now / 60_000) * 60_000;
    return { start, end: start + 60_000 };
  }
  const date = new Date(now);
  if (period === "day") {
    const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
    return { start, end: start + 86_400_000 };
  }
  return { start: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1), end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) };
}

/** A subject's limits: each of its own settings wins over the default (null removes the default); `soft` likewise. */
export function effectiveLimits(own: Limits | null | undefined, defaults: Limits | undefined): { limits: Partial<Record<LimitName, number>>; soft: boolean } {
  const limits: Partial<Record<LimitName, number>> = {};
  for (const name of LIMIT_NAMES) {
    const value = own?.[name] !== undefined ? own[name] : defaults?.[name];
    if (typeof value === "number") limits[name] = value;
  }
  return { limits, soft: own?.soft ?? defaults?.soft ?? false };
}

/**
 * Requests per minute, tokens per minute and spend per UTC day and month, for a workspace and
 * for each key: one mechanism, counted in the database (usage_counters), so every instance of a
 * fleet on one PostgreSQL adds to and reads the same totals. A request is counted when admitted
 * (an atomic increment, so requests per minute are exact across a fleet); its tokens and cost when
 * it ends. So a token or spend limit is checked against what finished before: requests in flight
 * when it is reached still finish, and one instance's overshoot is at most what it has in flight.
 * Subjects without limits cost nothing: no row is read or written for them.
 */
export class LimitKeeper {
  readonly #purgedAt = new Map<string, number>();

  constructor(
    /** The routing file's `limits:` and --rate-limit-rpm, read on every request (the file reloads). */
    private readonly defaults: () => FileLimits,
    readonly now: () => number = Date.now,
  ) {}

  /** The subjects a request is counted against: the workspace, and the key when one is used. */
  subjects(workspaceLimits: Limits | null, key: { id: string; limits: Limits | null | undefined } | null): LimitedSubject[] {
    const defaults = this.defaults();
    const out: LimitedSubject[] = [];
    const workspace = effectiveLimits(workspaceLimits, defaults.workspace);
    if (Object.keys(workspace.limits).length > 0) out.push({ scope: "workspace", subject: "workspace", ...workspace });
    if (key) {
      const own = effectiveLimits(key.limits, defaults.key);
      if (Object.keys(own.limits).length > 0) out.push({ scope: "key", subject: `key:${key.id}`, ...own });
    }
    return out;
  }

  /** Counts the request and checks every limit; a hard limit passed refuses it (and takes its count back). */
  async admit(scope: WorkspaceScope, subjects: LimitedSubject[]): Promise<Admission> {
    if (subjects.length === 0) return { refused: undefined, warnings: [], subjects };
    const now = this.now();
    const exceeded: Exceeded[] = [];
    const counted: { subject: string; start: number }[] = [];
    for (const subject of subjects) {
      const { limits } = subject;
      const over = (limit: LimitName, used: number, reached: boolean) => {
        if (reached) exceeded.push({ limit, scope: subject.scope, max: limits[limit]!, used, resetAt: new Date(windowOf(PERIOD_OF[limit], now).end), soft: subject.soft });
      };
      if (limits.requests_per_minute !== undefined || limits.tokens_per_minute !== undefined) {
        const { start } = windowOf("minute", now);
        const first = { subject: subject.subject, period: "minute" as const, startsAt: new Date(start), requests: 1 };
        const [row] = await scope
          .insert(usageCounters, first)
          .onConflictDoUpdate({ target: [usageCounters.workspaceId, usageCounters.subject, usageCounters.period, usageCounters.startsAt], set: { requests: sql`${usageCounters.requests} + 1` } })
          .returning({ requests: usageCounters.requests, tokens: usageCounters.tokens });
        counted.push({ subject: subject.subject, start });
        if (limits.requests_per_minute !== undefined) over("requests_per_minute", row!.requests - 1, row!.requests > limits.requests_per_minute);
        if (limits.tokens_per_minute !== undefined) over("tokens_per_minute", row!.tokens, row!.tokens >= limits.tokens_per_minute);
      }
      if (limits.spend_per_day_usd !== undefined || limits.spend_per_month_usd !== undefined) {
        const day = windowOf("day", now).start;
        const month = windowOf("month", now).start;
        const rows = await scope.select(
          usageCounters,
          eq(usageCounters.subject, subject.subject),
          or(and(eq(usageCounters.period, "day"), eq(usageCounters.startsAt, new Date(day))), and(eq(usageCounters.period, "month"), eq(usageCounters.startsAt, new Date(month)))),
        );
        const spent = (period: Period) => rows.find((row) => row.period === period)?.costUsd ?? 0;
        if (limits.spend_per_day_usd !== undefined) over("spend_per_day_usd", spent("day"), spent("day") >= limits.spend_per_day_usd);
        if (limits.spend_per_month_usd !== undefined) over("spend_per_month_usd", spent("month"), spent("month") >= limits.spend_per_month_usd);
      }
    }
    const refused = exceeded.find((e) => !e.soft);
    // A refused request is not one of the minute's requests: its count is taken back.
    if (refused) for (const { subject, start } of counted) await scope.update(usageCounters, { requests: sql`${usageCounters.requests} - 1` as never }, eq(usageCounters.subject, subject), eq(usageCounters.period, "minute"), eq(usageCounters.startsAt, new Date(start)));
    return { refused, warnings: exceeded.filter((e) => e.soft), subjects };
  }

  /** Adds a finished request's tokens and cost to the windows its subjects' limits read. Never throws (failures are the caller's to log). */
  async charge(scope: WorkspaceScope, subjects: LimitedSubject[], tokens: number, costUsd: number): Promise<void> {
    if (tokens === 0 && costUsd === 0) return;
    const now = this.now();
    for (const subject of subjects) {
      const periods: Period[] = [];
      if (subject.limits.tokens_per_minute !== undefined && tokens > 0) periods.push("minute");
      if (costUsd > 0 && (subject.limits.spend_per_day_usd !== undefined || subject.limits.spend_per_month_usd !== undefined)) periods.push("day", "month");
      for (const period of periods) {
        const first = { subject: subject.subject, period, startsAt: new Date(windowOf(period, now).start), tokens, costUsd };
        await scope
          .insert(usageCounters, first)
          .onConflictDoUpdate({
            target: [usageCounters.workspaceId, usageCounters.subject, usageCounters.period, usageCounters.startsAt],
            set: { tokens: sql`${usageCounters.tokens} + ${tokens}`, costUsd: sql`${usageCounters.costUsd} + ${costUsd}` },
          });
      }
    }
    await this.#purge(scope, now);
  }

  /** Drops windows long over, at most once an hour per workspace and instance. */
  async #purge(scope: WorkspaceScope, now: number): Promise<void> {
    const last = this.#purgedAt.get(scope.workspaceId) ?? 0;
    if (now - last < PURGE_EVERY_MS) return;
    this.#purgedAt.set(scope.workspaceId, now);
    for (const period of ["minute", "day", "month"] as const) {
      await scope.delete(usageCounters, eq(usageCounters.period, period), lt(usageCounters.startsAt, new Date(now - KEEP_MS[period])));
    }
  }
}
