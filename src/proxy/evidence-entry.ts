import { createHash } from "node:crypto";
import type { EvidenceRecord } from "../evidence/writer";
import type { Usage } from "./dialects/dialect";
import type { ProxiedRequest } from "./request";
import { strongest, type FirewallVerdict } from "./stages";

export type RequestOutcome = {
  status: number;
  cacheStatus: "hit" | "miss" | "skip";
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
    api: request.view.api,
    model: request.view.model,
    stream: request.stream,
    status: outcome.status,
    cacheStatus: outcome.cacheStatus,
    firewallAction: strongest(outcome.verdicts).action,
    firewallMatches: outcome.verdicts.flatMap((v) => v.matches),
    overheadMs: Math.max(0, Math.round(outcome.overheadMs)),
    upstreamMs: Math.max(0, Math.round(outcome.upstreamMs)),
    promptTokens: outcome.usage?.prompt_tokens ?? null,
    completionTokens: outcome.usage?.completion_tokens ?? null,
    totalTokens: outcome.usage?.total_tokens ?? null,
    promptSha256: sha256(JSON.stringify(request.view.conversation)),
    requestBody: logBodies ? request.rawBody : null,
    responseBody: logBodies ? (outcome.responseBody ?? null) : null,
    error: outcome.error ?? null,
  };
}

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
