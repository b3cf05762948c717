import { createHash } from "node:crypto";
import type { CacheRejection } from "../evidence/schema";
import type { EvidenceRecord } from "../evidence/writer";
import type { ProxiedRequest } from "./request";
import { strongest, type FirewallVerdict } from "./stages";
import type { Usage } from "./completion-transcript";

export type RequestOutcome = {
  status: number;
  cacheStatus: "hit" | "miss" | "skip";
  cacheRejected?: CacheRejection;
  verdicts: FirewallVerdict[];
  overheadMs: number;
  upstreamMs: number;
  usage?: Usage;
  responseBody?: string;
  error?: string;
};

/** Spec §6 evidence: one record per request. The provider key is never part of it. */
export function evidenceEntry(request: ProxiedRequest, outcome: RequestOutcome, logBodies: boolean): EvidenceRecord {
  return {
    requestId: request.requestId,
    workspaceId: request.scope.workspaceId,
    keyId: request.scope.actor.keyId,
    model: request.body.model,
    stream: request.stream,
    status: outcome.status,
    cacheStatus: outcome.cacheStatus,
    cacheRejected: outcome.cacheRejected ?? null,
    firewallAction: strongest(outcome.verdicts).action,
    firewallMatches: outcome.verdicts.flatMap((v) => v.matches),
    overheadMs: Math.max(0, Math.round(outcome.overheadMs)),
    upstreamMs: Math.max(0, Math.round(outcome.upstreamMs)),
    promptTokens: outcome.usage?.prompt_tokens ?? null,
    completionTokens: outcome.usage?.completion_tokens ?? null,
    totalTokens: outcome.usage?.total_tokens ?? null,
    promptSha256: createHash("sha256").update(JSON.stringify(request.body.messages)).digest("hex"),
    requestBody: logBodies ? request.rawBody : null,
    responseBody: logBodies ? (outcome.responseBody ?? null) : null,
    error: outcome.error ?? null,
  };
}
