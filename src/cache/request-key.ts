import { createHash } from "node:crypto";
import type { CacheSubject } from "../proxy/dialects/dialect";

/**
 * Body fields that change how a response is delivered or billed, never what it says: they are
 * left out of the keys, so a streamed and a non-streamed request share an entry. Every other
 * field (temperature, top_p, tools, tool_choice, response_format, seed, n, stop, max_tokens,
 * logprobs, … and any field Sieve does not know) is part of the key.
 */
export const DELIVERY_ONLY_FIELDS = [
  "stream",
  "stream_options",
  "user",
  "safety_identifier",
  "metadata",
  "store",
  "service_tier",
  "prompt_cache_key",
  "prompt_cache_retention",
] as const;

/** Bumped when the key recipe changes, so old entries stop matching instead of matching wrongly. */
const KEY_VERSION = 3;

export type CacheKeys = {
  /** SHA-256 over workspace, upstream, API, model, parameters and the whole conversation. */
  exactKey: string;
  /**
   * SHA-256 over the same minus the last user turn's text, plus the embedding model: the
   * entries a semantic lookup may answer from.
   */
  scopeKey: string;
  /** The last user turn's text; undefined when the request cannot be matched semantically. */
  prompt: string | undefined;
};

/** The keys of one request: every dialect hands the same CacheSubject shape, and the API is part of the key. */
export function cacheKeys(input: { workspaceId: string; upstreamUrl: string; api: string; model: string; subject: CacheSubject; vectorSpace: string }): CacheKeys {
  const { subject } = input;
  const params = Object.fromEntries(Object.entries(subject.params).filter(([name]) => !(DELIVERY_ONLY_FIELDS as readonly string[]).includes(name)));
  // The conversation so far is most of a long request's bytes: serialised once for both keys.
  const shared = canonicalJson({ v: KEY_VERSION, workspace: input.workspaceId, upstream: input.upstreamUrl, api: input.api, model: input.model, params, prefix: subject.prefix });
  return {
    exactKey: sha256(shared, canonicalJson({ last: subject.last })),
    scopeKey: sha256(shared, canonicalJson({ last: subject.lastWithoutText, vectors: input.vectorSpace })),
    prompt: subject.prompt,
  };
}

/** JSON with object keys sorted at every level: the same value always hashes the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** SHA-256 of JSON texts, each ended by a newline (which JSON text never holds unescaped). */
function sha256(...jsonTexts: string[]): string {
  const hash = createHash("sha256");
  for (const text of jsonTexts) hash.update(text).update("\n");
  return hash.digest("hex");
}
