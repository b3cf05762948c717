import { anthropicMessagesBody, type AnthropicMessage, type AnthropicMessagesBody } from "../model";
import { formatSseEvent } from "../sse";
import { conversationSubject } from "./cache-subject";
import type { Dialect, ErrorKind, ScannedText } from "./dialect";
import { anthropicErrorBody, anthropicType, ERROR_CODES, errorKindStatus } from "./errors";
import { messagesUsage, MessagesTranscript } from "./messages-transcript";
import { replayPieces } from "./replay-pieces";

/** Server tools run by Anthropic (live web, sandboxes): answers that use them are never cached. */
const SERVER_TOOL = /^(web_search|web_fetch|code_execution|memory|tool_search)/;

/** Blocks that carry data rather than the user's words: the firewall's data channel. */
const DATA_BLOCKS = new Set(["tool_result", "document", "search_result", "web_fetch_tool_result", "web_search_tool_result"]);
type Block = { type: string; text?: unknown; content?: unknown; source?: { type?: unknown; data?: unknown } };

/**
 * Anthropic Messages API, POST /v1/messages. The provider key comes in x-api-key or
 * Authorization: Bearer and is forwarded as it came, with anthropic-version and anthropic-beta.
 * Requests that use server tools (web search, code execution…), MCP servers or a container
 * read live or stored state and are never cached.
 */
export const anthropicMessages: Dialect = {
  name: "anthropic_messages",
  api: "POST /v1/messages",
  provider: "anthropic",
  upstreamPath: "/v1/messages",
  forwardedHeaders: ["x-api-key", "authorization", "anthropic-version", "anthropic-beta", "accept", "user-agent"],
  schema: anthropicMessagesBody,

  read(raw) {
    const body = raw as AnthropicMessagesBody;
    const { model, messages, ...params } = body;
    const texts: ScannedText[] = [];
    const system = typeof body.system === "string" ? body.system : blocksText(body.system ?? []);
    if (system.trim()) texts.push({ system: true, text: system, channel: "user" });
    for (const message of messages) {
      if (message.role !== "user") continue;
      if (typeof message.content === "string") {
        if (message.content.trim()) texts.push({ system: false, text: message.content, channel: "user" });
        continue;
      }
      // What the user wrote is one text; each tool result, document or search result is data of its own.
      const own = blocksText(message.content.filter((block) => !DATA_BLOCKS.has(block.type)));
      if (own.trim()) texts.push({ system: false, text: own, channel: "user" });
      for (const block of message.content.filter((block) => DATA_BLOCKS.has(block.type))) {
        const text = blocksText([block]);
        if (text.trim()) texts.push({ system: false, text, channel: "data" });
      }
    }
    return {
      api: anthropicMessages.api,
      model,
      stream: body.stream === true,
      texts,
      cache: usesProviderState(body) ? undefined : conversationSubject(messages, params, promptText),
      conversation: { system: body.system ?? null, messages },
    };
  },

  answer(json) {
    if (!json || typeof json !== "object") return undefined;
    const message = json as { type?: unknown; content?: unknown; usage?: unknown };
    if (message.type !== "message" || !Array.isArray(message.content)) return undefined;
    return { text: blocksText(message.content as Block[], ""), usage: messagesUsage(message.usage), complete: true };
  },

  transcript: () => new MessagesTranscript(),
  replayStream: messageToSse,
  errorBody: anthropicErrorBody,
  streamError: (kind, message, requestId, reason) => formatSseEvent(anthropicStreamError(kind, message, requestId, reason), "error"),
};

/**
 * Inside a stream there is no status: the SDK raises Anthropic's own event shape ({type: "error",
 * error: {type, message}}), so that is what ends a stream Sieve cuts, with the spec's reason and request_id beside it.
 */
function anthropicStreamError(kind: ErrorKind, message: string, requestId: string, reason?: string | null): Record<string, unknown> {
  return {
    type: "error",
    error: { type: anthropicType(errorKindStatus(kind)), message: kind === "blocked" ? `${ERROR_CODES.blocked}: ${reason ?? message}` : message, code: ERROR_CODES[kind] },
    ...(kind === "blocked" ? { reason: reason ?? message } : {}),
    request_id: requestId,
  };
}

/**
 * The text a content array carries, whatever the block's type: its `text`, the content of
 * tool_result and search_result blocks (where indirect injections arrive), a plain-text document's data.
 */
function blocksText(blocks: Block[], separator = "\n"): string {
  return blocks
    .flatMap((block): string[] => {
      if (typeof block.text === "string") return [block.text];
      if (typeof block.content === "string") return [block.content];
      if (Array.isArray(block.content)) return [blocksText(block.content as Block[], separator)];
      if (block.source?.type === "text" && typeof block.source.data === "string") return [block.source.data];
      return [];
    })
    .join(separator);
}

function userText(message: AnthropicMessage): string {
  return typeof message.content === "string" ? message.content : blocksText(message.content);
}

/** The last message's text when it is a user message of text blocks only; otherwise exact hits only. */
function promptText(message: AnthropicMessage): string | undefined {
  if (message.role !== "user") return undefined;
  if (Array.isArray(message.content) && (message.content.length === 0 || message.content.some((block) => block.type !== "text"))) return undefined;
  const text = userText(message);
  return text.trim() ? text : undefined;
}

function usesProviderState(body: AnthropicMessagesBody): boolean {
  if (body.mcp_servers || body.container) return true;
  const tools = Array.isArray(body.tools) ? (body.tools as { type?: unknown }[]) : [];
  return tools.some((tool) => SERVER_TOOL.test(String(tool?.type ?? "")));
}

type StoredBlock = { type: string; text?: string; input?: unknown; thinking?: string; signature?: string; [key: string]: unknown };

/**
 * A stored message as Anthropic's event stream: message_start, per block start → deltas → stop,
 * message_delta (stop reason, output tokens) and message_stop.
 */
export function messageToSse(message: Record<string, unknown>): string {
  let out = "";
  const emit = (type: string, fields: Record<string, unknown>) => (out += formatSseEvent({ type, ...fields }, type));
  const { content, usage, stop_reason, stop_sequence, ...rest } = message as { content?: StoredBlock[]; usage?: Record<string, unknown>; stop_reason?: unknown; stop_sequence?: unknown };
  emit("message_start", { message: { ...rest, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 0 } } });
  (content ?? []).forEach((block, index) => {
    if (block.type === "text") {
      emit("content_block_start", { index, content_block: { ...block, text: "" } });
      for (const text of replayPieces(block.text ?? "")) emit("content_block_delta", { index, delta: { type: "text_delta", text } });
    } else if (block.type === "tool_use" || block.type === "server_tool_use") {
      emit("content_block_start", { index, content_block: { ...block, input: {} } });
      emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) } });
    } else if (block.type === "thinking") {
      emit("content_block_start", { index, content_block: { ...block, thinking: "", signature: "" } });
      emit("content_block_delta", { index, delta: { type: "thinking_delta", thinking: block.thinking ?? "" } });
      emit("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature ?? "" } });
    } else {
      emit("content_block_start", { index, content_block: block });
    }
    emit("content_block_stop", { index });
  });
  emit("message_delta", { delta: { stop_reason: stop_reason ?? "end_turn", stop_sequence: stop_sequence ?? null }, usage: { output_tokens: usage?.output_tokens ?? 0 } });
  emit("message_stop", {});
  return out;
}
