import type { CacheSubject } from "./dialect";

/**
 * The cache subject of a conversation of turns that keep their text in `content` (chat
 * messages, Responses input items, Anthropic messages): the turns before the last one, the last
 * one, and the last one without its text for the scope key.
 */
export function conversationSubject<Turn extends { content?: unknown }>(
  turns: Turn[],
  params: Record<string, unknown>,
  promptOf: (last: Turn) => string | undefined,
  storeStreamed = true,
): CacheSubject {
  const last = turns[turns.length - 1]!;
  const { content: _content, ...lastWithoutText } = last;
  return { params, prefix: turns.slice(0, -1), last, lastWithoutText, prompt: promptOf(last), storeStreamed };
}
