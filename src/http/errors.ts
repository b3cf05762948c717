/**
 * An error that becomes an HTTP response with this status: `code` is the machine-readable name,
 * `detail` the sentence for the developer. Services throw it; the app's error handler renders it
 * in the shape of the API that was called (see ErrorShape), so no route builds error bodies by hand.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
    /** Further members of Sieve's own body (e.g. a variant's `status`). */
    readonly extra: Record<string, unknown> = {},
    /** A body the spec fixes exactly (§7's 404s): rendered as `{detail, status_code}` alone. */
    readonly specFixed = false,
  ) {
    super(detail);
  }
}

export const httpError = (status: number, code: string, detail: string, headers?: Record<string, string>) => new HttpError(status, code, detail, headers);

export const badRequest = (detail: string) => httpError(400, "invalid_request", detail);

/** Spec §7 fixes these two bodies, `{detail, status_code}` byte for byte: the only Sieve bodies without `code`. */
export const notFoundDetail = (detail: "Variant not found" | "Document not found") =>
  new HttpError(404, detail === "Variant not found" ? "variant_not_found" : "document_not_found", detail, {}, {}, true);

/** How one API family writes an error body. */
export type ErrorShape = (error: HttpError, requestId: string | undefined) => Record<string, unknown>;

/**
 * Sieve's own APIs (documents, keys, workspace, firewall, cache, evidence): the spec's
 * `{detail, status_code}` (§7) plus `code`, one shape for every status.
 */
export const sieveErrorBody: ErrorShape = (error) =>
  error.specFixed ? { detail: error.detail, status_code: error.status } : { detail: error.detail, status_code: error.status, code: error.code, ...error.extra };

export const internalError = () => new HttpError(500, "internal_error", "an internal error occurred; the server log has the details under this request's X-Service-Request-Id");

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}
