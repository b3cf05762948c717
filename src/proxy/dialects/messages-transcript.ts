import { eventJson, type SseEvent } from "../sse";
import type { StreamTranscript, Usage } from "./dialect";

type Block = { type: string; text?: string; input?: unknown; thinking?: string; signature?: string; citations?: unknown[]; [key: string]: unknown };

/**
 * Accumulates an Anthropic Messages stream: the text of `content_block_delta` text deltas for
 * the output monitor, and the message a non-streamed request would have received (blocks
 * rebuilt from their deltas, usage from message_start and message_delta).
 */
export class MessagesTranscript implements StreamTranscript {
  text = "";
  done = false;
  #message: Record<string, unknown> = {};
  #blocks: Block[] = [];
  #partialJson = new Map<number, string>();
  #usage: Record<string, unknown> = {};

  add(event: SseEvent): string {
    const data = eventJson(event);
    if (!data) return "";
    switch (data.type) {
      case "message_start": {
        const { content: _content, usage, ...message } = (data.message ?? {}) as Record<string, unknown>;
        this.#message = message;
        this.#usage = { ...(usage as object) };
        return "";
      }
      case "content_block_start":
        this.#blocks[Number(data.index)] = { ...(data.content_block as Block) };
        return "";
      case "content_block_delta":
        return this.#delta(Number(data.index), (data.delta ?? {}) as Record<string, unknown>);
      case "content_block_stop": {
        const json = this.#partialJson.get(Number(data.index));
        const block = this.#blocks[Number(data.index)];
        if (json !== undefined && block) block.input = parseOr(json, block.input);
        return "";
      }
      case "message_delta":
        Object.assign(this.#message, data.delta);
        Object.assign(this.#usage, data.usage);
        return "";
      case "message_stop":
        this.done = true;
        return "";
    }
    return "";
  }

  #delta(index: number, delta: Record<string, unknown>): string {
    const block = (this.#blocks[index] ??= { type: "text", text: "" });
    switch (delta.type) {
      case "text_delta": {
        const text = String(delta.text ?? "");
        block.text = (block.text ?? "") + text;
        this.text += text;
        return text;
      }
      case "input_json_delta":
        this.#partialJson.set(index, (this.#partialJson.get(index) ?? "") + String(delta.partial_json ?? ""));
        return "";
      case "thinking_delta":
        block.thinking = (block.thinking ?? "") + String(delta.thinking ?? "");
        return "";
      case "signature_delta":
        block.signature = String(delta.signature ?? "");
        return "";
      case "citations_delta":
        (block.citations ??= []).push(delta.citation);
        return "";
    }
    return "";
  }

  isEnd(event: SseEvent): boolean {
    return (event.event ?? eventJson(event)?.type) === "message_stop";
  }

  get usage(): Usage | undefined {
    return messagesUsage(this.#usage);
  }

  toResponse(): Record<string, unknown> {
    return { ...this.#message, content: this.#blocks.filter(Boolean), usage: this.#usage };
  }
}

function parseOr(json: string, fallback: unknown): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return fallback;
  }
}

/**
 * Anthropic usage ({input_tokens, cache_read_input_tokens, cache_creation_input_tokens,
 * output_tokens}) in the evidence log's terms: its input_tokens are only the uncached ones, so
 * the cache's reads and writes are added to make prompt_tokens every input token.
 */
export function messagesUsage(usage: unknown): Usage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  const u = usage as { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number | null; cache_creation_input_tokens?: number | null };
  if (u.input_tokens === undefined && u.output_tokens === undefined) return undefined;
  const cached = u.cache_read_input_tokens ?? 0;
  const written = u.cache_creation_input_tokens ?? 0;
  const input = u.input_tokens === undefined ? undefined : u.input_tokens + cached + written;
  return {
    prompt_tokens: input,
    completion_tokens: u.output_tokens,
    total_tokens: (input ?? 0) + (u.output_tokens ?? 0),
    ...(u.cache_read_input_tokens != null ? { cached_tokens: cached } : {}),
    ...(u.cache_creation_input_tokens != null ? { cache_write_tokens: written } : {}),
  };
}
