import { SSE_DONE, type SseEvent } from "../sse";
import type { StreamTranscript, Usage } from "./dialect";
import { chatUsage } from "./openai-chat";

type ToolCall = { id?: string; type?: string; function: { name: string; arguments: string } };
type Choice = { index: number; role: string; content: string; toolCalls: ToolCall[]; finishReason: string | null; refusal: string | null };

/**
 * Accumulates a streamed chat completion chunk by chunk: the assistant text so far (for the
 * firewall's output monitor), usage (for evidence) and, once `[DONE]` is seen, the whole
 * completion as one chat.completion object (for the cache and the evidence log).
 */
export class ChatTranscript implements StreamTranscript {
  #choices = new Map<number, Choice>();
  #meta: { id?: string; model?: string; created?: number; system_fingerprint?: string } = {};
  /** The provider's usage object as it came: a cached replay sends it back unchanged. */
  #usage: unknown;
  done = false;

  /** Adds one SSE event; returns the assistant text it added (choice 0). */
  add(event: SseEvent): string {
    if (event.data === SSE_DONE) {
      this.done = true;
      return "";
    }
    let chunk: any;
    try {
      chunk = JSON.parse(event.data);
    } catch {
      return "";
    }
    if (!chunk || typeof chunk !== "object") return "";
    this.#meta.id ??= chunk.id;
    this.#meta.model ??= chunk.model;
    this.#meta.created ??= chunk.created;
    this.#meta.system_fingerprint ??= chunk.system_fingerprint;
    if (chunk.usage) this.#usage = chunk.usage;
    let added = "";
    for (const part of Array.isArray(chunk.choices) ? chunk.choices : []) {
      const choice = this.#choice(part.index ?? 0);
      const delta = part.delta ?? {};
      if (delta.role) choice.role = delta.role;
      if (typeof delta.content === "string") {
        choice.content += delta.content;
        if (choice.index === 0) added += delta.content;
      }
      if (typeof delta.refusal === "string") choice.refusal = (choice.refusal ?? "") + delta.refusal;
      for (const call of delta.tool_calls ?? []) {
        const slot = (choice.toolCalls[call.index ?? 0] ??= { function: { name: "", arguments: "" } });
        if (call.id) slot.id = call.id;
        if (call.type) slot.type = call.type;
        if (call.function?.name) slot.function.name += call.function.name;
        if (call.function?.arguments) slot.function.arguments += call.function.arguments;
      }
      if (part.finish_reason) choice.finishReason = part.finish_reason;
    }
    return added;
  }

  get usage(): Usage | undefined {
    return chatUsage(this.#usage);
  }

  isEnd(event: SseEvent): boolean {
    return event.data === SSE_DONE;
  }

  /** Assistant text of choice 0 so far. */
  get text(): string {
    return this.#choices.get(0)?.content ?? "";
  }

  #choice(index: number): Choice {
    let choice = this.#choices.get(index);
    if (!choice) {
      choice = { index, role: "assistant", content: "", toolCalls: [], finishReason: null, refusal: null };
      this.#choices.set(index, choice);
    }
    return choice;
  }

  /** The stream as the chat.completion object a non-streamed request would have received. */
  toResponse(): Record<string, unknown> {
    const choices = [...this.#choices.values()]
      .sort((a, b) => a.index - b.index)
      .map((choice) => ({
        index: choice.index,
        message: {
          role: choice.role,
          content: choice.toolCalls.length && !choice.content ? null : choice.content,
          ...(choice.refusal ? { refusal: choice.refusal } : {}),
          ...(choice.toolCalls.length ? { tool_calls: choice.toolCalls.map((call) => ({ id: call.id, type: call.type ?? "function", function: call.function })) } : {}),
        },
        finish_reason: choice.finishReason,
        logprobs: null,
      }));
    return {
      id: this.#meta.id ?? "",
      object: "chat.completion",
      created: this.#meta.created ?? Math.floor(Date.now() / 1000),
      model: this.#meta.model ?? "",
      ...(this.#meta.system_fingerprint ? { system_fingerprint: this.#meta.system_fingerprint } : {}),
      choices,
      ...(this.#usage ? { usage: this.#usage } : {}),
    };
  }
}
