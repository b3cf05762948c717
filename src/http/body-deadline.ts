import type { Server } from "bun";
import { jsonResponse } from "./errors";
import { startRequestContext } from "./request-context";

type Handler = (request: Request, server: Server<unknown>) => Response | Promise<Response>;

/**
 * Wraps the server's fetch handler. Bun keeps a connection that promised a body and stopped
 * sending open until its idle timeout (255 s here, for long provider streams), and a body that
 * trickles a byte at a time never hits even that. So every request body is received here,
 * whole, within `timeoutMs` (408 and the connection closed otherwise), before any route sees
 * it. Routes read the body they are handed from memory; Bun's maxRequestBodySize bounds it.
 * The client address is taken here too, while the original request is at hand.
 */
export function withBodyDeadline(handle: Handler, timeoutMs: number): Handler {
  return async (request, server) => {
    const clientAddress = server.requestIP(request)?.address;
    if (!request.body) {
      startRequestContext(request, clientAddress);
      return handle(request, server);
    }
    let timer: Timer | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), timeoutMs)));
    const reading = request.arrayBuffer();
    const result = await Promise.race([reading, late]).catch((error: Error) => error);
    clearTimeout(timer);
    if (result === "late" || result instanceof Error) {
      reading.catch(() => {});
      server.timeout(request, 1); // the rest of the body will not be read: drop the connection
      const detail = result === "late" ? `body: not received within ${timeoutMs} ms (--body-timeout-ms)` : "body: the connection failed while it was sent";
      return jsonResponse(result === "late" ? 408 : 400, { error: result === "late" ? "request_timeout" : "invalid_request", detail }, { connection: "close" });
    }
    const received = new Request(request.url, { method: request.method, headers: request.headers, body: result, signal: request.signal });
    startRequestContext(received, clientAddress);
    return handle(received, server);
  };
}
