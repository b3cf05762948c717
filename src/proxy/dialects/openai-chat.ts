import { chatCompletionBody, type ChatCompletionBody, type ChatMessage } from "../model";
import { formatSseEvent, SSE_DONE, sseErrorEvent } from "../sse";
import { conversationSubject } from "./cache-subject";
import { ChatTranscript } from "./chat-transcript";
import type { Dialect, ScannedText, Usage } from "./dialect";
import { ERROR_CODES, openaiErrorBody } from "./errors";
import { replayPieces } from "./replay-pieces";

/** `"usage": null` as a member of a chunk (a quote inside a string is escaped, so text cannot match). */
const USAGE_NULL = /,\s*"usage"\s*:\s*null(?=\s*[,}])|(?<=\{)\s*"usage"\s*:\s*null\s*,/;
const EMPTY_CHOICES = /"choices"\s*:\s*\[\s*\]/;

/** Roles whose text is scanned: what the user typed and what tools returned (where indirect injections arrive). */
const SCANNED_ROLES = new Set(["user", "tool", "function"]);
/** Roles whose text is data (the firewall's data channel): tool and function results. */
const DATA_ROLES = new Set(["tool", "function"]);
/** "developer" is the newer OpenAI name for the system role. */
const SYSTEM_ROLES = new Set(["system", "developer"]);

/** OpenAI chat completions, POST /v1/chat/completions (spec §4.1). */
export const openaiChat: Dialect = {
  name: "openai_chat",
  api: "POST /v1/chat/completions",
  provider: "openai",
  upstreamPath: "/chat/completions",
  forwardedHeaders: ["authorization", "accept", "openai-organization", "openai-project", "openai-beta", "user-agent"],
  schema: chatCompletionBody,

  read(raw) {
    const body = raw as ChatCompletionBody;
    const { model, messages, ...params } = body;
    return {
      api: openaiChat.api,
      model,
      stream: body.stream === true,
      texts: messages.flatMap((message): ScannedText[] => {
        const system = SYSTEM_ROLES.has(message.role);
        return system || SCANNED_ROLES.has(message.role) ? [{ system, text: messageText(message), channel: DATA_ROLES.has(message.role) ? "data" : "user" }] : [];
      }),
      // A streamed transcript does not carry logprobs: replaying it would drop what was asked for.
      cache: conversationSubject(messages, params, promptText, !body.logprobs),
      conversation: messages,
    };
  },

  answer(json) {
    if (!json || typeof json !== "object" || !Array.isArray((json as { choices?: unknown }).choices)) return undefined;
    const completion = json as { choices: { message?: { content?: unknown } }[]; usage?: unknown };
    const content = completion.choices[0]?.message?.content;
    return { text: typeof content === "string" ? content : "", usage: chatUsage(completion.usage), complete: true };
  },

  transcript: () => new ChatTranscript(),
  replayStream: completionToSse,
  requestUsage(body, rawBody) {
    if (body.stream !== true) return undefined;
    const options = body.stream_options as { include_usage?: unknown } | null | undefined;
    if (options?.include_usage === true) return undefined;
    // Appended as text when the body has no stream_options: every byte the client sent stays as it was.
    if (!("stream_options" in body)) {
      const end = rawBody.lastIndexOf("}");
      return `${rawBody.slice(0, end)},"stream_options":{"include_usage":true}${rawBody.slice(end)}`;
    }
    const json = JSON.parse(rawBody) as Record<string, unknown>;
    return JSON.stringify({ ...json, stream_options: { ...(options ?? {}), include_usage: true } });
  },
  hideUsage(event) {
    // With include_usage the provider adds "usage":null to every chunk and one chunk of usage without choices.
    if (!event.data.includes('"usage"')) return event.raw;
    if (EMPTY_CHOICES.test(event.data) && !USAGE_NULL.test(event.data)) return "";
    return event.raw.replace(USAGE_NULL, "");
  },
  errorBody: openaiErrorBody,
  streamError: (kind, message, requestId, reason) => sseErrorEvent(ERROR_CODES[kind], message, requestId, kind === "blocked" ? { reason } : {}),
};

/** Chat usage ({prompt_tokens, completion_tokens, …_details}) in the evidence log's terms. */
export function chatUsage(usage: unknown): Usage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  const u = usage as { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number; prompt_tokens_details?: { cached_tokens?: number }; completion_tokens_details?: { reasoning_tokens?: number } };
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens ?? (u.prompt_tokens ?? 0) + (u.completion_tokens ?? 0),
    cached_tokens: u.prompt_tokens_details?.cached_tokens,
    reasoning_tokens: u.completion_tokens_details?.reasoning_tokens,
  };
}

/**
 * The text of one message: a string content, or the text of every part that carries one (a
 * lenient provider may read a part of another type, e.g. `input_text`, as text too).
 */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n");
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
  if (content.some((part) => part.type !== "text" || typeof part.text !== "string")) return undefined;
  const text = messageText(message);
  return text.trim() ? text : undefined;
}

type StoredChoice = { index: number; message: { role?: string; content?: string | null; tool_calls?: unknown[]; refusal?: string }; finish_reason: string | null };

/** A stored chat.completion split back into chat.completion.chunk events, so streaming clients iterate it unchanged. */
export function completionToSse(completion: Record<string, unknown>): string {
  const base = { id: completion.id, object: "chat.completion.chunk", created: completion.created, model: completion.model };
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => formatSseEvent({ ...base, choices, ...extra });
  let out = "";
  for (const choice of (completion.choices ?? []) as StoredChoice[]) {
    const { index, message } = choice;
    out += chunk([{ index, delta: { role: message.role ?? "assistant", content: "" }, finish_reason: null }]);
    for (const piece of replayPieces(message.content ?? "")) out += chunk([{ index, delta: { content: piece }, finish_reason: null }]);
    if (message.tool_calls?.length) {
      const calls = message.tool_calls.map((call, position) => ({ index: position, ...(call as object) }));
      out += chunk([{ index, delta: { tool_calls: calls }, finish_reason: null }]);
    }
    out += chunk([{ index, delta: {}, finish_reason: choice.finish_reason ?? "stop" }]);
  }
  if (completion.usage) out += chunk([], { usage: completion.usage });
  return out + formatSseEvent(SSE_DONE);
}
