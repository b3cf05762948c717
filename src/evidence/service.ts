import { and, desc, eq, gte, lte, type SQL } from "drizzle-orm";
import { badRequest } from "../http/errors";
import type { WorkspaceScope } from "../tenancy/scope";
import type { EvidenceQuery } from "./model";
import { evidence } from "./schema";

type EvidenceRow = typeof evidence.$inferSelect;

function parseTime(name: string, raw: string | undefined): Date | undefined {
  if (raw === undefined) return undefined;
  const date = /^\d+$/.test(raw) ? new Date(Number(raw)) : new Date(raw);
  if (Number.isNaN(date.getTime())) throw badRequest(`${name}: expected an ISO 8601 time or epoch milliseconds`);
  return date;
}

export async function listEvidence(scope: WorkspaceScope, query: EvidenceQuery) {
  const since = parseTime("since", query.since);
  const until = parseTime("until", query.until);
  const filters: (SQL | undefined)[] = [
    since && gte(evidence.createdAt, since),
    until && lte(evidence.createdAt, until),
    query.status !== undefined ? eq(evidence.status, query.status) : undefined,
    query.cache && eq(evidence.cacheStatus, query.cache),
    query.firewall && eq(evidence.firewallAction, query.firewall),
    query.api !== undefined ? eq(evidence.api, query.api) : undefined,
  ];
  const rows = await scope
    .select(evidence, and(...filters))
    .orderBy(desc(evidence.createdAt), desc(evidence.requestId))
    .limit(query.limit)
    .offset(query.offset);
  const total = await scope.count(evidence, and(...filters));
  return { records: rows.map((row) => evidenceView(row, false)), total, limit: query.limit, offset: query.offset };
}

export async function getEvidence(scope: WorkspaceScope, requestId: string) {
  const row = await scope.first(evidence, eq(evidence.requestId, requestId));
  return row ? evidenceView(row, true) : undefined;
}

function evidenceView(row: EvidenceRow, withBodies: boolean) {
  return {
    request_id: row.requestId,
    created_at: row.createdAt.toISOString(),
    key_id: row.keyId,
    api: row.api,
    model: row.model,
    stream: row.stream,
    status: row.status,
    cache_status: row.cacheStatus,
    cache_rejected: row.cacheRejected,
    cache_hit: row.cacheHit,
    firewall_action: row.firewallAction,
    firewall_matches: row.firewallMatches,
    overhead_ms: row.overheadMs,
    upstream_ms: row.upstreamMs,
    usage:
      row.totalTokens === null
        ? null
        : { prompt_tokens: row.promptTokens, completion_tokens: row.completionTokens, total_tokens: row.totalTokens, cached_tokens: row.cachedTokens, reasoning_tokens: row.reasoningTokens, estimated: row.usageEstimated },
    cost_usd: row.costUsd,
    saved_cost_usd: row.savedCostUsd,
    limit_warning: row.limitWarning,
    prompt_sha256: row.promptSha256,
    error: row.error,
    attempts: row.attempts,
    data_protection: row.dataProtection ?? [],
    ...(withBodies ? { request_body: row.requestBody, response_body: row.responseBody } : {}),
  };
}

