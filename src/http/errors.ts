/**
 * An error that becomes an HTTP response with exactly this status and JSON body. Services
 * throw it; the app's error handler turns it into the response, so no route builds error
 * bodies by hand.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(String(body.detail ?? body.error ?? status));
  }
}

/** `{error, detail}`: the body of every Sieve-made 4xx except the spec's fixed shapes. */
export const httpError = (status: number, error: string, detail: string, headers?: Record<string, string>) =>
  new HttpError(status, { error, detail }, headers);

export const badRequest = (detail: string) => httpError(400, "invalid_request", detail);

/** Spec §7: 404 bodies of the document API are `{detail, status_code}`. */
export const notFoundDetail = (detail: "Variant not found" | "Document not found") => new HttpError(404, { detail, status_code: 404 });

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}
