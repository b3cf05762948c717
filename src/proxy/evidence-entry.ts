import { sha256Hex } from "../tenancy/secrets";
import type { CacheHitRef, CacheRejection } from "../evidence/schema";
import type { ProtectionRecord } from "../data-protection/stage";
import type { EvidenceRecord } from "../evidence/writer";
import type { Usage } from "./dialects/dialect";
import type { UpstreamAttempt } from "./upstream";
import type { ProxiedRequest } from "./request";
import { strongest, type FirewallVerdict } from "./stages";
import type { Metered } from "../usage/meter";

export type RequestOutcome = {
  status: number;
  cacheStatus: "hit" | "miss" | "skip";
  cacheRejected?: CacheRejection;
  cacheHit?: CacheHitRef;
  verdicts: FirewallVerdict[];
  overheadMs: number;
  upstreamMs: number;
  usage?: Usage;
  /** The answer's text, for a usage estimate when the provider gave no usage. */
  answerText?: string;
  responseBody?: string;
  error?: string;
  /** A routed request's tries at its targets (src/routing); undefined without a route. */
  attempts?: UpstreamAttempt[];
  /** Data protection findings of the request and its answer (types, counts, actions; never values). */
  dataProtection?: ProtectionRecord[];
};

/** What the record is about: a whole ProxiedRequest, or one refused before its body was understood. */
export type EvidenceSubject = Pick<ProxiedRequest, "requestId" | "scope" | "workspace" | "receivedAt" | "dialect"> &
  Partial<Pick<ProxiedRequest, "view" | "stream">> & { rawBody: string | undefined };

/** Spec §6 evidence: one record per request. The provider key is never part of it. */
export function evidenceEntry(request: EvidenceSubject, outcome: RequestOutcome, logBodies: boolean, metered?: Metered): EvidenceRecord {
  const usage = metered ? metered.usage : outcome.usage;
  return {
    requestId: request.requestId,
    workspaceId: request.scope.workspaceId,
    keyId: request.scope.actor.keyId,
    api: request.dialect.api,
    model: request.view?.model ?? null,
    stream: request.stream ?? false,
    status: outcome.status,
    cacheStatus: outcome.cacheStatus,
    cacheRejected: outcome.cacheRejected ?? null,
    cacheHit: outcome.cacheHit ?? null,
    firewallAction: strongest(outcome.verdicts).action,
    firewallMatches: outcome.verdicts.flatMap((v) => v.matches),
    overheadMs: Math.max(0, Math.round(outcome.overheadMs)),
    upstreamMs: Math.max(0, Math.round(outcome.upstreamMs)),
    promptTokens: usage?.prompt_tokens ?? null,
    completionTokens: usage?.completion_tokens ?? null,
    totalTokens: usage?.total_tokens ?? null,
    cachedTokens: usage?.cached_tokens ?? null,
    reasoningTokens: usage?.reasoning_tokens ?? null,
    usageEstimated: metered?.estimated ?? false,
    costUsd: metered?.costUsd ?? null,
    savedCostUsd: metered?.savedCostUsd ?? null,
    limitWarning: metered?.limitWarning ?? null,
    promptSha256: sha256Hex(request.view ? JSON.stringify(request.view.conversation) : (request.rawBody ?? "")),
    requestBody: logBodies ? loggedBody(request.rawBody) : null,
    responseBody: logBodies ? loggedBody(outcome.responseBody) : null,
    error: outcome.error ?? null,
    attempts: outcome.attempts ?? null,
    dataProtection: outcome.dataProtection?.length ? outcome.dataProtection : null,
  };
}


/**
 * Bodies kept in the evidence log, up to 1 MiB each: the background writer inserts its batch in
 * one go, and a 20 MB answer held the event loop for half a second there.
 */
export const MAX_LOGGED_BODY_CHARS = 1024 * 1024;

function loggedBody(body: string | undefined): string | null {
  if (body === undefined) return null;
  if (body.length <= MAX_LOGGED_BODY_CHARS) return body;
  return `${body.slice(0, MAX_LOGGED_BODY_CHARS)}…[truncated: ${body.length - MAX_LOGGED_BODY_CHARS} more characters]`;
}
