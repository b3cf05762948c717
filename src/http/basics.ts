import { Elysia, type ValidationError } from "elysia";
import { isConnectionError } from "../db/connection";
import type { Logger } from "../logging/logger";
import { HttpError, httpError, internalError, jsonResponse, type ErrorShape } from "./errors";
import { assertJsonShape, isJsonContentType } from "./json-body";
import { requestContext, requestContextPlugin } from "./request-context";
import { describeValidationError } from "./validation";

export type BodyLimits = { maxJsonDepth: number };

/**
 * Cross-cutting HTTP behaviour for the whole app: a request id on every request, one JSON log
 * line per response, every error turned into a JSON body that names the problem (in the shape of
 * the API that was called: `errorShapeFor`), and the one check of every body Elysia parses (JSON
 * only, nesting bounded) before validation walks it.
 * Routes that read their own body (`parse: "none"`: the proxy, uploads) check it themselves.
 */
export const httpBasics = (log: Logger, limits: BodyLimits, errorShapeFor: (request: Request) => ErrorShape) =>
  new Elysia({ name: "http.basics" })
    .use(requestContextPlugin)
    .onTransform({ as: "global" }, ({ body, request }) => {
      if (body === undefined) return;
      const contentType = request.headers.get("content-type");
      if (!isJsonContentType(contentType)) {
        throw httpError(415, "unsupported_media_type", `body: send application/json (got ${contentType ? contentType.split(";")[0] : "no content type"})`);
      }
      if (body !== null && typeof body === "object") assertJsonShape(body, limits.maxJsonDepth);
    })
    .onAfterResponse({ as: "global" }, ({ request, path, set, responseValue }) => {
      const { requestId, receivedAt } = requestContext(request);
      log.debug("request", {
        request_id: requestId,
        method: request.method,
        path,
        status: responseStatus(responseValue, set),
        ms: Math.round(performance.now() - receivedAt),
      });
    })
    .onError({ as: "global" }, ({ code, error, set, request }) => {
      const { requestId } = requestContext(request);
      const failure = asHttpError(code, error, requestId, log);
      set.status = failure.status; // so the access log line shows what the client got
      return jsonResponse(failure.status, errorShapeFor(request)(failure, requestId), { ...failure.headers, ...requestIdHeader(requestId) });
    });

/** The status a client got, as an after-response hook sees it (the error handler sets `set.status`). */
export function responseStatus(responseValue: unknown, set: { status?: unknown }): number {
  return responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200;
}

/** Any error as an HttpError: Elysia's own (validation, parse, no route) get their code and a sentence. */
function asHttpError(code: string | number, error: unknown, requestId: string | undefined, log: Logger): HttpError {
  if (error instanceof HttpError) return error;
  switch (code) {
    case "VALIDATION":
      return new HttpError(400, "invalid_request", describeValidationError(error as ValidationError));
    case "PARSE":
      return new HttpError(400, "invalid_json", "the request body is not valid JSON (or not of the declared content type)");
    case "NOT_FOUND":
      return new HttpError(404, "not_found", "no such route");
    case "INVALID_COOKIE_SIGNATURE":
      return new HttpError(401, "unauthorized", "invalid session cookie: sign in again");
  }
  if (isConnectionError(error)) {
    // Fleet mode: PostgreSQL unreachable. Nothing was half written (a lost transaction rolls back); the client may retry.
    log.warn("database unavailable", { request_id: requestId, error: (error as Error).message });
    return new HttpError(503, "database_unavailable", "the database cannot be reached; retry shortly", { "retry-after": "1" });
  }
  const status = (error as { status?: number }).status;
  if (typeof status === "number" && status >= 400 && status < 500) return new HttpError(status, "invalid_request", (error as Error).message || "bad request");
  log.error("unhandled error", { request_id: requestId, error });
  return internalError();
}

function requestIdHeader(requestId: string | undefined): Record<string, string> {
  return requestId ? { "x-service-request-id": requestId } : {};
}
