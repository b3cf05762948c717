import { Elysia } from "elysia";

export type RequestContext = { requestId: string; receivedAt: number };

const contexts = new WeakMap<Request, RequestContext>();

/**
 * The request id and arrival time of a request, created on first use and the same for every
 * plugin after that (Elysia may run a derive once per plugin that declares it).
 */
export function requestContext(request: Request): RequestContext {
  let context = contexts.get(request);
  if (!context) {
    const given = request.headers.get("x-request-id");
    context = { requestId: given && /^[\w.-]{1,64}$/.test(given) ? given : crypto.randomUUID(), receivedAt: performance.now() };
    contexts.set(request, context);
  }
  return context;
}

/** Gives routes `requestId` and `receivedAt`. */
export const requestContextPlugin = new Elysia({ name: "http.request-context" }).derive({ as: "global" }, ({ request }) => requestContext(request));
