import type { AppContext } from "../runtime/context";
import type { WorkspaceScope } from "../tenancy/scope";
import { findWorkspace, type Workspace } from "../tenancy/service";
import type { Admission, Exceeded, LimitedSubject } from "./limits";

/**
 * Counts a request against its workspace's and key's limits (src/usage/limits.ts). Requests that
 * spend no tokens (Sieve's own APIs: settings, evidence, documents) meet only requests_per_minute.
 */
export async function admitRequest(ctx: AppContext, scope: WorkspaceScope, { workspace, spending }: { workspace?: Workspace; spending: boolean }): Promise<Admission> {
  const row = workspace ?? (await findWorkspace(ctx.database, scope.workspaceId))!;
  const { keyId, keyLimits } = scope.actor;
  const subjects = ctx.usage.limits.subjects(row.limits, keyId ? { id: keyId, limits: keyLimits } : null);
  return ctx.usage.limits.admit(scope, spending ? subjects : requestsOnly(subjects));
}

function requestsOnly(subjects: LimitedSubject[]): LimitedSubject[] {
  return subjects.flatMap((s) => (s.limits.requests_per_minute === undefined ? [] : [{ ...s, limits: { requests_per_minute: s.limits.requests_per_minute } }]));
}

const UNITS: Record<Exceeded["limit"], string> = {
  requests_per_minute: "requests this minute",
  tokens_per_minute: "tokens this minute",
  spend_per_day_usd: "USD today (UTC)",
  spend_per_month_usd: "USD this month (UTC)",
};

const amount = (limit: Exceeded["limit"], value: number) => (limit.startsWith("spend") ? value.toFixed(4) : String(value));

export function limitMessage(e: Exceeded): string {
  return `${e.scope === "key" ? "this key's" : "this workspace's"} ${e.limit} limit is reached: ${amount(e.limit, e.used)} of ${amount(e.limit, e.max)} ${UNITS[e.limit]}; it resets at ${e.resetAt.toISOString()}`;
}

/** A dialect's (or Sieve's) error body with the limit's details beside it. */
export function limitExceededBody(e: Exceeded, body: Record<string, unknown>): Record<string, unknown> {
  return { ...body, limit: e.limit, limit_scope: e.scope, limit_value: e.max, used: e.used, reset_at: e.resetAt.toISOString() };
}

/** Retry-After in whole seconds until the window starts again (at least 1). */
export function limitHeaders(e: Exceeded, now: number): Record<string, string> {
  return { "retry-after": String(Math.max(1, Math.ceil((e.resetAt.getTime() - now) / 1000))) };
}

/** X-Service-Limit-Warning: the soft limits a request went past, e.g. `spend_per_day_usd=10.2000/10.0000 (workspace)`. */
export function limitWarningHeader(warnings: Exceeded[]): Record<string, string> {
  if (warnings.length === 0) return {};
  return { "x-service-limit-warning": warnings.map((w) => `${w.limit}=${amount(w.limit, w.used)}/${amount(w.limit, w.max)} (${w.scope})`).join(", ") };
}
