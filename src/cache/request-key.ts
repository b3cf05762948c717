import { createHash } from "node:crypto";
import type { ChatCompletionBody, ChatMessage } from "../proxy/model";

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
const KEY_VERSION = 1;

export type CacheKeys = {
  /** SHA-256 over workspace, upstream, model, parameters and every message. */
  exactKey: string;
  /**
   * SHA-256 over the same minus the last user message's content, plus the embedding model: the
   * entries a semantic lookup may answer from.
   */
  scopeKey: string;
  /** The last user message's text; undefined when the request cannot be matched semantically. */
  prompt: string | undefined;
};

export function cacheKeys(input: { workspaceId: string; upstreamUrl: string; body: ChatCompletionBody; vectorSpace: string }): CacheKeys {
  const { model, messages, ...rest } = input.body;
  const params = Object.fromEntries(Object.entries(rest).filter(([name]) => !(DELIVERY_ONLY_FIELDS as readonly string[]).includes(name)));
  const base = { v: KEY_VERSION, workspace: input.workspaceId, upstream: input.upstreamUrl, model, params };
  const last = messages[messages.length - 1]!;
  const prompt = promptText(last);
  const { content: _content, ...lastWithoutContent } = last;
  return {
    exactKey: sha256(canonicalJson({ ...base, messages })),
    scopeKey: sha256(canonicalJson({ ...base, prefix: messages.slice(0, -1), last: lastWithoutContent, vectors: input.vectorSpace })),
    prompt,
  };
}

/**
 * Text of the last message when it is a user message made of text only. An image or audio part
 * would make two requests with similar words different questions, so those match exactly or not at all.
 */
function promptText(message: ChatMessage): string | undefined {
  if (message.role !== "user") return undefined;
  const { content } = message;
  if (typeof content === "string") return content.trim() ? content : undefined;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    if (part.type !== "text" || typeof part.text !== "string") return undefined;
    texts.push(part.text);
  }
  const text = texts.join("\n");
  return text.trim() ? text : undefined;
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

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
