import { Elysia } from "elysia";

/** The body limit of routes that take a handful of JSON fields: credentials, settings, keys, patterns. */
export const SMALL_JSON_BODY_BYTES = 16 * 1024;

/** A body holding a JSON string of `chars` characters (each at most 6 bytes, as `\u0001`) beside a few small fields. */
export const jsonTextBodyBytes = (chars: number) => chars * 6 + SMALL_JSON_BODY_BYTES;

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body: over the ${limit}-byte limit`);
  }
}

/**
 * The body of a request (or of a provider's response), at most `maxBytes`, counted while it
 * arrives: a declared Content-Length over the limit is refused before a byte is read, and a longer
 * body (chunked, or longer than it declared) is cancelled at the first chunk past the limit.
 * Throws BodyTooLargeError.
 */
export async function readBoundedBody(message: Pick<Request, "headers" | "body">, maxBytes: number): Promise<Uint8Array> {
  if (Number(message.headers.get("content-length") ?? 0) > maxBytes) {
    void message.body?.cancel().catch(() => {});
    throw new BodyTooLargeError(maxBytes);
  }
  if (!message.body) return new Uint8Array();
  const reader = message.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    received += next.value.byteLength;
    if (received > maxBytes) {
      void reader.cancel().catch(() => {});
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks);
}

/**
 * Lets a route declare its body limit: `{ maxBodyBytes: SMALL_JSON_BODY_BYTES }`. The server
 * reads the declarations from the app's routes (`bodyLimitsOf`) and holds each body to its
 * route's limit while it arrives (see body-deadline.ts), before Elysia or the route parses it.
 */
export const bodyLimit = new Elysia({ name: "http.body-limit" }).macro({ maxBodyBytes: (_bytes: number) => ({}) });

/** The body limit a route declared for a request, by method and path; undefined: the server-wide limits only. */
export type BodyLimitOf = (method: string, pathname: string) => number | undefined;

export function bodyLimitsOf(routes: readonly { method: string; path: string; hooks: unknown }[]): BodyLimitOf {
  const declared = routes.flatMap((route) => {
    const bytes = (route.hooks as { maxBodyBytes?: unknown } | undefined)?.maxBodyBytes;
    return typeof bytes === "number" ? [{ method: route.method, pattern: pathPattern(route.path), bytes }] : [];
  });
  return (method, pathname) => declared.find((route) => route.method === method && route.pattern.test(pathname))?.bytes;
}

/** An Elysia route path (`/v1/firewall/patterns/:id`) as a regular expression; a trailing slash is optional, as in Elysia. */
function pathPattern(path: string): RegExp {
  const segments = path
    .replace(/\/+$/, "")
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  return new RegExp(`^${segments.join("/")}/?$`);
}
