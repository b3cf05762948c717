import { badRequest } from "../http/errors";
import { listApiKeys } from "../tenancy/service";
import type { WorkspaceScope } from "../tenancy/scope";
import type { UsageQuery } from "./model";

const DAY_MS = 86_400_000;
/** A report spans at most this much; the default is the 30 days before `to`. */
const MAX_SPAN_MS = 400 * DAY_MS;
/** Rows of one report (a group per model, key, API or day): beyond it the cheapest go. */
const MAX_ROWS = 1_000;

/** The group's SQL: the evidence columns a report may group by (never text from the request). */
const GROUPS = {
  model: "model",
  key: "key_id",
  api: "api",
  // Whole UTC days since 1970, the same integer division in SQLite and PostgreSQL.
  day: `(created_at / ${DAY_MS})`,
} as const;

export type UsageRow = {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  saved_cost_usd: number;
  cache_hits: number;
  /** Requests with tokens but no price (a model neither the catalogue nor the operator prices): their cost is not in cost_usd. */
  unpriced_requests: number;
  [group: string]: string | number | null;
};

function parseTime(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const time = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(time)) throw badRequest(`${name}: expected an ISO 8601 time or epoch milliseconds`);
  return time;
}

/**
 * Usage of the workspace's proxied requests between `from` (inclusive) and `to` (exclusive), one
 * row per group, from the evidence log. Tokens are what providers were sent and billed: a cache
 * hit's tokens are not in them, its would-be cost is in saved_cost_usd.
 */
export async function usageReport(scope: WorkspaceScope, query: UsageQuery & { group_by: keyof typeof GROUPS }, now = Date.now()): Promise<UsageRow[]> {
  const to = parseTime("to", query.to, now);
  const from = parseTime("from", query.from, to - 30 * DAY_MS);
  if (from >= to) throw badRequest("from: must be before to");
  if (to - from > MAX_SPAN_MS) throw badRequest(`from: a report spans at most ${MAX_SPAN_MS / DAY_MS} days`);
  const billed = (column: string) => `coalesce(sum(CASE WHEN cache_status = 'hit' THEN 0 ELSE ${column} END), 0)`;
  const rows = await scope.all<Record<string, unknown>>(
    `SELECT ${GROUPS[query.group_by]} AS grp, count(*) AS requests,
       ${billed("prompt_tokens")} AS input_tokens, ${billed("completion_tokens")} AS output_tokens,
       ${billed("cached_tokens")} AS cached_tokens, ${billed("reasoning_tokens")} AS reasoning_tokens,
       coalesce(sum(cost_usd), 0) AS cost_usd, coalesce(sum(saved_cost_usd), 0) AS saved_cost_usd,
       sum(CASE WHEN cache_status = 'hit' THEN 1 ELSE 0 END) AS cache_hits,
       sum(CASE WHEN cost_usd IS NULL AND prompt_tokens IS NOT NULL THEN 1 ELSE 0 END) AS unpriced_requests
     FROM evidence WHERE workspace_id = $workspace_id AND created_at >= $from AND created_at < $to
     GROUP BY grp ORDER BY ${query.group_by === "day" ? "grp ASC" : "cost_usd DESC, requests DESC"} LIMIT ${MAX_ROWS}`,
    { from, to },
  );
  const keyNames = query.group_by === "key" ? new Map((await listApiKeys(scope)).map((key) => [key.id, key.name])) : undefined;
  return rows.map((row) => {
    const group = row.grp === null || row.grp === undefined ? null : query.group_by === "day" ? new Date(Number(row.grp) * DAY_MS).toISOString().slice(0, 10) : String(row.grp);
    const numbers = Object.fromEntries(
      ["requests", "input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "cost_usd", "saved_cost_usd", "cache_hits", "unpriced_requests"].map((name) => [name, Number(row[name] ?? 0)]),
    ) as UsageRow;
    return { [query.group_by]: group, ...(keyNames ? { key_name: group === null ? null : (keyNames.get(group) ?? null) } : {}), ...numbers };
  });
}

/** The rows as CSV (RFC 4180): a header line, then one line per row. */
export function usageCsv(rows: UsageRow[], group: string): string {
  const columns = [group, ...(group === "key" ? ["key_name"] : []), "requests", "input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "cost_usd", "saved_cost_usd", "cache_hits", "unpriced_requests"];
  const cell = (value: unknown) => {
    const text = value === null || value === undefined ? "" : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [columns.join(","), ...rows.map((row) => columns.map((column) => cell(row[column])).join(","))].join("\r\n") + "\r\n";
}
