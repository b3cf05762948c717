import { eventJson, type SseEvent } from "../sse";
import type { StreamTranscript, Usage } from "./dialect";

/** Events that end a Responses stream; each carries the whole response object. */
const END_EVENTS = new Set(["response.completed", "response.incomplete", "response.failed"]);

/**
 * Accumulates a Responses API stream: the text of `response.output_text.delta` events for the
 * output monitor, and the final response object that the end event carries.
 */
export class ResponsesTranscript implements StreamTranscript {
  text = "";
  done = false;
  #response: Record<string, unknown> = {};

  add(event: SseEvent): string {
    const data = eventJson(event);
    if (!data) return "";
    if (data.response && typeof data.response === "object") this.#response = data.response as Record<string, unknown>;
    if (END_EVENTS.has(String(data.type))) this.done = true;
    if (data.type === "response.output_text.delta" && typeof data.delta === "string") {
      this.text += data.delta;
      return data.delta;
    }
    return "";
  }

  isEnd(event: SseEvent): boolean {
    return END_EVENTS.has(event.event ?? String(eventJson(event)?.type));
  }

  get usage(): Usage | undefined {
    return responsesUsage(this.#response.usage);
  }

  toResponse(): Record<string, unknown> {
    return this.#response;
  }
}

/** Responses usage ({input_tokens, output_tokens, total_tokens}) in the evidence log's terms. */
export function responsesUsage(usage: unknown): Usage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  const u = usage as { input_tokens?: number; output_tokens?: number; total_tokens?: number; input_tokens_details?: { cached_tokens?: number }; output_tokens_details?: { reasoning_tokens?: number } };
  return {
    prompt_tokens: u.input_tokens,
    completion_tokens: u.output_tokens,
    total_tokens: u.total_tokens ?? (u.input_tokens ?? 0) + (u.output_tokens ?? 0),
    cached_tokens: u.input_tokens_details?.cached_tokens,
    reasoning_tokens: u.output_tokens_details?.reasoning_tokens,
  };
}
