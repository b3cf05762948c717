import { HttpError } from "../../http/errors";
import type { Dialect, ErrorKind } from "./dialect";

/** The spec's error codes: blocked_by_firewall (§2.9) and Sieve's own for provider failures. */
export const ERROR_CODES: Record<ErrorKind, string> = {
  blocked: "blocked_by_firewall",
  rate_limited: "rate_limited",
  upstream_error: "upstream_error",
  upstream_timeout: "upstream_timeout",
  upstream_unreachable: "upstream_unreachable",
  upstream_refused: "upstream_refused",
  upstream_unavailable: "upstream_unavailable",
  upstream_too_large: "upstream_response_too_large",
};

/** The status Sieve answers a provider failure with: too slow 504, known to be down 503, otherwise 502. */
export const errorKindStatus = (kind: ErrorKind): number => (kind === "blocked" ? 403 : kind === "rate_limited" ? 429 : kind === "upstream_timeout" ? 504 : kind === "upstream_unavailable" ? 503 : 502);

/** The error `type` each SDK maps to its error classes and documents, by status. */
function openaiType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 429) return "rate_limit_error";
  return status >= 500 ? "server_error" : "invalid_request_error";
}

const ANTHROPIC_TYPES: Record<number, string> = {
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  503: "overloaded_error",
  504: "timeout_error",
};
/** Anthropic's error type for a status; the SDK maps them to its error classes (also inside streams, which have no status). */
export const anthropicType = (status: number) => ANTHROPIC_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");

/**
 * OpenAI's error body, `{error: {message, type, param, code}}`: the `openai` SDK prints
 * `error.message`, so the sentence reaches the developer ("401 missing X-Service-Api-Key: …").
 */
export function openaiError(error: HttpError, requestId: string | undefined): Record<string, unknown> {
  return { error: { message: error.detail, type: openaiType(error.status), param: null, code: error.code }, ...error.extra, ...(requestId ? { request_id: requestId } : {}) };
}

/** Anthropic's error body, `{type: "error", error: {type, message}}`; `code` beside them is Sieve's machine-readable name. */
export function anthropicError(error: HttpError, requestId: string | undefined): Record<string, unknown> {
  return { type: "error", error: { type: anthropicType(error.status), message: error.detail, code: error.code }, ...error.extra, ...(requestId ? { request_id: requestId } : {}) };
}

/** A provider failure (or any other Sieve-made error but a block) in a provider's own shape. */
export function kindError(kind: ErrorKind, message: string): HttpError {
  return new HttpError(errorKindStatus(kind), ERROR_CODES[kind], message);
}

/**
 * The OpenAI dialects' bodies. A block keeps the spec's `{error, reason, request_id}` (§2.9) byte
 * for byte; the SDK cannot read a sentence from it, so the reason also travels in the
 * X-Service-Firewall-Reason header (see blockedHeaders).
 */
export function openaiErrorBody(kind: ErrorKind, message: string, requestId: string, reason?: string | null): Record<string, unknown> {
  return kind === "blocked" ? { error: ERROR_CODES.blocked, reason: reason ?? message, request_id: requestId } : openaiError(kindError(kind, message), requestId);
}

/**
 * The Anthropic dialect's bodies. A block keeps the spec's members (error, reason, request_id) and
 * adds the top-level `message` the Anthropic SDK prints when present.
 */
export function anthropicErrorBody(kind: ErrorKind, message: string, requestId: string, reason?: string | null): Record<string, unknown> {
  if (kind !== "blocked") return anthropicError(kindError(kind, message), requestId);
  return { type: "error", error: ERROR_CODES.blocked, message: `${ERROR_CODES.blocked}: ${reason ?? message}`, reason: reason ?? message, request_id: requestId };
}

/** The error shape of the provider a request's dialect speaks. */
export const providerErrorShape = (provider: Dialect["provider"]) => (provider === "anthropic" ? anthropicError : openaiError);
