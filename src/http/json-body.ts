import { httpError } from "./errors";

/**
 * JSON parses deep nesting fine, but everything that walks the value afterwards (schema
 * validation, canonical cache keys, JSON.stringify) recurses and, at ~10^5 levels, spends
 * seconds on the event loop before a stack overflow. Every JSON body is checked here, once,
 * right after parsing and before anything else touches it.
 *
 * `maxValues` bounds the work per value the same way: validation, the firewall's message walk
 * and the cache key cost a little per message, so 250,000 one-word messages (8.5 MB, under the
 * size limit) held the event loop for ~0.5 s where a 9 MB single prompt takes ~25 ms.
 */
export function assertJsonShape(value: unknown, maxDepth: number, maxValues = Number.POSITIVE_INFINITY): void {
  const stack: [unknown, number][] = [[value, 1]];
  let values = 1;
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > maxDepth) {
      throw httpError(400, "invalid_json", `body: JSON nested deeper than ${maxDepth} levels (--max-json-depth)`);
    }
    const children = Array.isArray(node) ? node : Object.values(node as object);
    values += children.length;
    if (values > maxValues) {
      throw httpError(413, "payload_too_large", `body: more than ${maxValues} JSON values (objects, arrays, strings, numbers…; --max-json-values)`);
    }
    for (const child of children) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
}

/** Parses a JSON text with the shape checks; a syntax error is a 400 too. */
export function parseJsonBody(text: string, maxDepth: number, maxValues?: number): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw httpError(400, "invalid_json", "body: not valid JSON");
  }
  if (value !== null && typeof value === "object") assertJsonShape(value, maxDepth, maxValues);
  return value;
}

/** `application/json` and the `+json` family (`application/merge-patch+json`, …). */
export function isJsonContentType(contentType: string | null): boolean {
  return contentType !== null && /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(contentType.trim());
}
