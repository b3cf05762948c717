import type { Server } from "bun";
import { BodyTooLargeError, readBoundedBody, type BodyLimitOf } from "./bounded-body";
import { HttpError, jsonResponse, type ErrorShape } from "./errors";
import { startRequestContext } from "./request-context";

type Handler = (request: Request, server: Server<unknown>) => Response | Promise<Response>;

/** A streamed body slower than this on average, once --body-timeout-ms has passed, is cut off (a byte-at-a-time trickle). */
const MIN_STREAMED_BYTES_PER_SECOND = 1024;

/**
 * Wraps the server's fetch handler. Bun keeps a connection that promised a body and stopped
 * sending open until its idle timeout (255 s here, for long provider streams), and a body that
 * trickles a byte at a time never hits even that. So every request body is received here,
 * whole, within `timeoutMs` (408 and the connection closed otherwise), before any route sees
 * it; routes read the body they are handed from memory, and Bun's maxRequestBodySize bounds it.
 * The exception is a body the route reads itself (`streamed`: pass-through uploads, which must
 * never be buffered whole, and document uploads, read only once admitted): it may take longer,
 * but not stall for `timeoutMs` or fall below MIN_STREAMED_BYTES_PER_SECOND after that; then
 * its connection is dropped.
 * A route that declared a body limit (`maxBodyBytes`, see bounded-body.ts) has its body counted
 * while it arrives: over the limit, it is answered 413 at once and its connection closed, so
 * nothing past the limit is held or parsed.
 * The client address is taken here too, while the original request is at hand. Errors are
 * written in the shape of the API called (`errorShapeFor`, as the app's own error handler does).
 */
export function withBodyDeadline(handle: Handler, timeoutMs: number, streamed: (url: URL) => boolean, bodyLimitOf: BodyLimitOf, errorShapeFor: (request: Request) => ErrorShape): Handler {
  return async (request, server) => {
    const clientAddress = server.requestIP(request)?.address;
    if (!request.body) {
      startRequestContext(request, clientAddress);
      return handle(request, server);
    }
    const url = new URL(request.url);
    if (streamed(url)) {
      const body = deadlineStream(request.body, timeoutMs, () => server.timeout(request, 1));
      const relayed = new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal, duplex: "half" } as RequestInit);
      startRequestContext(relayed, clientAddress);
      return handle(relayed, server);
    }
    let timer: Timer | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), timeoutMs)));
    const limit = bodyLimitOf(request.method, url.pathname);
    const reading = limit === undefined ? request.arrayBuffer() : readBoundedBody(request, limit);
    const result = await Promise.race([reading, late]).catch((error: Error) => error);
    clearTimeout(timer);
    if (result instanceof BodyTooLargeError) {
      server.timeout(request, 1); // the rest of the body will not be read: drop the connection
      const failure = new HttpError(413, "payload_too_large", `${result.message} of ${request.method} ${url.pathname}`);
      return jsonResponse(413, errorShapeFor(request)(failure, undefined), { connection: "close" });
    }
    if (result === "late" || result instanceof Error) {
      reading.catch(() => {});
      server.timeout(request, 1); // the rest of the body will not be read: drop the connection
      const detail = result === "late" ? `body: not received within ${timeoutMs} ms (--body-timeout-ms)` : "body: the connection failed while it was sent";
      const failure = new HttpError(result === "late" ? 408 : 400, result === "late" ? "request_timeout" : "invalid_request", detail);
      return jsonResponse(failure.status, errorShapeFor(request)(failure, undefined), { connection: "close" });
    }
    const received = new Request(request.url, { method: request.method, headers: request.headers, body: result, signal: request.signal });
    startRequestContext(received, clientAddress);
    return handle(received, server);
  };
}

/** The body as it arrives, failing (and calling `late`) when it stalls or trickles. */
function deadlineStream(body: ReadableStream<Uint8Array>, timeoutMs: number, late: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const started = performance.now();
  let received = 0;
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, why: string) => {
    late();
    void reader.cancel(why).catch(() => {});
    controller.error(new Error(`body: ${why} (--body-timeout-ms)`));
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: Timer | undefined;
      const stalled = new Promise<"stalled">((resolve) => (timer = setTimeout(() => resolve("stalled"), timeoutMs)));
      const next = await Promise.race([reader.read(), stalled]);
      clearTimeout(timer);
      if (next === "stalled") return fail(controller, `no data for ${timeoutMs} ms`);
      if (next.done) return controller.close();
      received += next.value.byteLength;
      const elapsedMs = performance.now() - started;
      if (elapsedMs > timeoutMs && (received * 1000) / elapsedMs < MIN_STREAMED_BYTES_PER_SECOND) return fail(controller, "arriving too slowly");
      controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
