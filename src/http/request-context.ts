import { Elysia } from "elysia";

export type RequestContext = { requestId: string; receivedAt: number; clientAddress: string | undefined };

const contexts = new WeakMap<Request, RequestContext>();

/** Called by the server for each request it receives (see body-deadline.ts). */
export function startRequestContext(request: Request, clientAddress: string | undefined): RequestContext {
  const given = request.headers.get("x-request-id");
  const context = { requestId: given && /^[\w.-]{1,64}$/.test(given) ? given : crypto.randomUUID(), receivedAt: performance.now(), clientAddress };
  contexts.set(request, context);
  return context;
}

/**
 * The request id, arrival time and client address of a request, the same for every plugin
 * (Elysia may run a derive once per plugin that declares it). A request that did not come
 * through the server (app.handle in a tool) gets a context on first use.
 */
export function requestContext(request: Request): RequestContext {
  return contexts.get(request) ?? startRequestContext(request, undefined);
}

/** Gives routes `requestId`, `receivedAt` and `clientAddress`. */
export const requestContextPlugin = new Elysia({ name: "http.request-context" }).derive({ as: "global" }, ({ request }) => requestContext(request));
