import { formatSseEvent, SSE_DONE } from "./sse";

/**
 * Answers from a stored chat.completion: as JSON, or, for a `stream: true` request, split back
 * into chat.completion.chunk events so streaming clients iterate it unchanged.
 */
export function replayCompletion(completion: Record<string, unknown>, stream: boolean, headers: Record<string, string>): Response {
  if (!stream) return new Response(JSON.stringify(completion), { status: 200, headers: { ...headers, "content-type": "application/json" } });
  return new Response(completionToSse(completion), { status: 200, headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } });
}

type StoredChoice = { index: number; message: { role?: string; content?: string | null; tool_calls?: unknown[]; refusal?: string }; finish_reason: string | null };

/** Pieces of this many characters keep replayed chunks close to what providers send. */
const REPLAY_PIECE_CHARS = 64;

export function completionToSse(completion: Record<string, unknown>): string {
  const base = { id: completion.id, object: "chat.completion.chunk", created: completion.created, model: completion.model };
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => formatSseEvent({ ...base, choices, ...extra });
  let out = "";
  for (const choice of (completion.choices ?? []) as StoredChoice[]) {
    const { index, message } = choice;
    out += chunk([{ index, delta: { role: message.role ?? "assistant", content: "" }, finish_reason: null }]);
    const content = message.content ?? "";
    for (let at = 0; at < content.length; at += REPLAY_PIECE_CHARS) {
      out += chunk([{ index, delta: { content: content.slice(at, at + REPLAY_PIECE_CHARS) }, finish_reason: null }]);
    }
    if (message.tool_calls?.length) {
      const calls = message.tool_calls.map((call, position) => ({ index: position, ...(call as object) }));
      out += chunk([{ index, delta: { tool_calls: calls }, finish_reason: null }]);
    }
    out += chunk([{ index, delta: {}, finish_reason: choice.finish_reason ?? "stop" }]);
  }
  if (completion.usage) out += chunk([], { usage: completion.usage });
  return out + formatSseEvent(SSE_DONE);
}
