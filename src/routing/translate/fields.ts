import { badRequest } from "../../http/errors";

/** A JSON object as both APIs send it. */
export type Json = Record<string, unknown>;

/** The names the 400s give each API. */
export const MESSAGES_API = "Anthropic's Messages API";
export const CHAT_API = "OpenAI chat completions";

export const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Both APIs read an explicit null as "not given" (their SDKs send null for unset options). */
export const given = (value: unknown): boolean => value !== undefined && value !== null;

/** The value as a short, readable quote for an error message. */
export function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** 400 naming the field: `<path>: <what> cannot be translated to <api> (<why>)`. */
export function untranslatable(path: string, what: string, api: string, why?: string): never {
  throw badRequest(`${path}: ${what} cannot be translated to ${api}${why ? ` (${why})` : ""}`);
}

/** 400 for a value of the wrong shape (the client's own API would refuse it too). */
export function malformed(path: string, expected: string): never {
  throw badRequest(`${path}: must be ${expected}`);
}

/**
 * Refuses every given field of `object` not in `known`: a field this translation does not know
 * might change the answer, so it is never dropped silently.
 */
export function onlyKnownFields(object: Json, known: readonly string[], path: string, api: string): void {
  for (const [key, value] of Object.entries(object)) {
    if (given(value) && !known.includes(key)) untranslatable(join(path, key), quote(value), api, "no counterpart");
  }
}

export const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

export function record(value: unknown, path: string): Json {
  return isRecord(value) ? value : malformed(path, "an object");
}

export function text(value: unknown, path: string): string {
  return typeof value === "string" ? value : malformed(path, "a string");
}

export function list(value: unknown, path: string): unknown[] {
  return Array.isArray(value) ? value : malformed(path, "an array");
}

/** A tool call's arguments (JSON text) as the object they encode; "" is a call without arguments. */
export function toolArguments(args: unknown): Json | undefined {
  if (typeof args !== "string") return undefined;
  if (args.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(args);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
