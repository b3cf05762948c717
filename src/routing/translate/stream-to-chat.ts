import { eventJson, formatSseEvent, SSE_DONE, type SseEvent } from "../../proxy/sse";
import { anthropicStreamErrorToChat } from "./errors";
import { isRecord, type Json } from "./fields";
import type { EventTranslator } from "./sse-pipe";
import { finishReason } from "./stop-reasons";
import { chatUsage } from "./usage";

/**
 * Messages events → chat.completion.chunk events. message_start opens with the assistant role;
 * text deltas become content deltas; a tool_use block becomes a tool call (its id and name
 * first, then its input_json_delta pieces as argument pieces); message_delta brings the
 * finish_reason; message_stop the usage chunk (when the client asked for it) and [DONE]. ping,
 * thinking and signature events have no chat counterpart and are dropped; an error event
 * becomes the `{"error": …}` data the openai SDK raises.
 */
export class MessagesToChatChunks implements EventTranslator {
  #id = "";
  readonly #created = Math.floor(Date.now() / 1000);
  /** Messages block index → chat tool call index. */
  readonly #toolCalls = new Map<number, number>();
  /** Usage as Messages counts it: message_start gives the input, message_delta the (cumulative) rest. */
  #usage: Json = {};

  constructor(
    private readonly model: string,
    private readonly includeUsage: boolean,
  ) {}

  translate(event: SseEvent): string {
    const data = eventJson(event);
    if (!data) return "";
    switch (data.type) {
      case "message_start": {
        const message = isRecord(data.message) ? data.message : {};
        this.#id = String(message.id ?? "");
        this.#usage = isRecord(message.usage) ? { ...message.usage } : {};
        return this.#chunk({ role: "assistant", content: "" });
      }
      case "content_block_start":
        return this.#blockStart(Number(data.index), isRecord(data.content_block) ? data.content_block : {});
      case "content_block_delta":
        return this.#blockDelta(Number(data.index), isRecord(data.delta) ? data.delta : {});
      case "message_delta": {
        // Its counts are cumulative totals: they replace, never add to, those of message_start.
        if (isRecord(data.usage)) for (const [key, value] of Object.entries(data.usage)) if (value !== null && value !== undefined) this.#usage[key] = value;
        const delta = isRecord(data.delta) ? data.delta : {};
        return this.#chunk({}, finishReason(delta.stop_reason));
      }
      case "message_stop":
        return (this.includeUsage ? this.#format([], { usage: chatUsage(this.#usage) }) : "") + formatSseEvent(SSE_DONE);
      case "error":
        return formatSseEvent(anthropicStreamErrorToChat(data));
      default:
        return "";
    }
  }

  #blockStart(index: number, block: Json): string {
    if (block.type === "text") return typeof block.text === "string" && block.text !== "" ? this.#chunk({ content: block.text }) : "";
    if (block.type !== "tool_use") return "";
    const call = this.#toolCalls.size;
    this.#toolCalls.set(index, call);
    return this.#chunk({ tool_calls: [{ index: call, id: block.id, type: "function", function: { name: block.name, arguments: "" } }] });
  }

  #blockDelta(index: number, delta: Json): string {
    if (delta.type === "text_delta" && typeof delta.text === "string") return this.#chunk({ content: delta.text });
    const call = this.#toolCalls.get(index);
    if (delta.type === "input_json_delta" && call !== undefined && typeof delta.partial_json === "string" && delta.partial_json !== "") {
      return this.#chunk({ tool_calls: [{ index: call, function: { arguments: delta.partial_json } }] });
    }
    return "";
  }

  #chunk(delta: Json, finish: string | null = null): string {
    return this.#format([{ index: 0, delta, finish_reason: finish, logprobs: null }]);
  }

  #format(choices: Json[], extra: Json = {}): string {
    return formatSseEvent({ id: this.#id, object: "chat.completion.chunk", created: this.#created, model: this.model, choices, ...extra });
  }
}
