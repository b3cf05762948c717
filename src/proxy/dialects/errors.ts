import type { ErrorKind } from "./dialect";

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

/** Bodies of the OpenAI dialects: the spec's `{error, reason, request_id}` for a block, `{error, detail, request_id}` otherwise. */
export function openaiErrorBody(kind: ErrorKind, message: string, requestId: string, reason?: string | null): Record<string, unknown> {
  return kind === "blocked"
    ? { error: ERROR_CODES.blocked, reason: reason ?? message, request_id: requestId }
    : { error: ERROR_CODES[kind], detail: message, request_id: requestId };
}
