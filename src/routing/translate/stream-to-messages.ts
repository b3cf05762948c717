import { eventJson, formatSseEvent, SSE_DONE, type SseEvent } from "../../proxy/sse";
import { chatStreamErrorToAnthropic } from "./errors";
import { isRecord, type Json } from "./fields";
import type { EventTranslator } from "./sse-pipe";
import { stopReason } from "./stop-reasons";
import { messagesUsage } from "./usage";

type OpenBlock = { index: number; call: number | undefined };

/**
 * chat.completion.chunk events → Messages events. The first chunk opens the message
 * (message_start); content deltas fill a text block, each new tool call opens a tool_use block
 * whose argument pieces become input_json_delta; a block closes when another opens or the
 * finish_reason arrives. message_delta (stop reason and usage) and message_stop wait for [DONE],
 * as the usage chunk comes after the finish_reason. An `{"error": …}` chunk becomes an error event.
 */
export class ChatChunksToMessages implements EventTranslator {
  #started = false;
  #open: OpenBlock | undefined;
  #blocks = 0;
  /** Chat tool call indexes already given a block. */
  readonly #calls = new Set<number>();
  #stopReason: string | undefined;
  #usage: unknown;
  /** After an error event nothing more goes out: the SDK has already raised it. */
  #failed = false;

  constructor(private readonly model: string) {}

  translate(event: SseEvent): string {
    if (this.#failed) return "";
    if (event.data === SSE_DONE) return this.#start("") + this.#close() + this.#event("message_delta", { delta: { stop_reason: this.#stopReason ?? "end_turn", stop_sequence: null }, usage: messagesUsage(this.#usage) }) + this.#event("message_stop", {});
    const chunk = eventJson(event);
    if (!chunk) return "";
    if (chunk.error !== undefined) return this.#fail(chatStreamErrorToAnthropic(chunk));
    let out = this.#start(String(chunk.id ?? ""));
    if (isRecord(chunk.usage)) this.#usage = chunk.usage;
    const choice = Array.isArray(chunk.choices) && isRecord(chunk.choices[0]) ? chunk.choices[0] : undefined;
    const delta = choice && isRecord(choice.delta) ? choice.delta : {};
    // A refusal streams as text, and the answer then ends as one.
    for (const said of [delta.content, delta.refusal]) if (typeof said === "string" && said !== "") out += this.#text(said);
    if (typeof delta.refusal === "string" && delta.refusal !== "") this.#stopReason = "refusal";
    for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      if (!isRecord(call)) continue;
      const piece = this.#toolCall(call);
      if (piece === undefined) return out + this.#fail({ type: "error", error: { type: "api_error", message: "the provider interleaved the argument pieces of two tool calls, which Messages events cannot carry" } });
      out += piece;
    }
    if (choice && typeof choice.finish_reason === "string") {
      out += this.#close();
      this.#stopReason ??= stopReason(choice.finish_reason);
    }
    return out;
  }

  #start(id: string): string {
    if (this.#started) return "";
    this.#started = true;
    // Input tokens are known only at the end: message_delta carries them, and the SDK takes them from there.
    const message = { id, type: "message", role: "assistant", model: this.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } };
    return this.#event("message_start", { message });
  }

  #text(text: string): string {
    const open = this.#open && this.#open.call === undefined ? "" : this.#openBlock(undefined, { type: "text", text: "" });
    return open + this.#event("content_block_delta", { index: this.#open!.index, delta: { type: "text_delta", text } });
  }

  /** A tool call's piece: a new call opens its block; undefined when it continues a call whose block is already closed. */
  #toolCall(call: Json): string | undefined {
    const index = Number(call.index ?? 0);
    const fn = isRecord(call.function) ? call.function : {};
    let out = "";
    if (!this.#calls.has(index)) {
      this.#calls.add(index);
      out = this.#openBlock(index, { type: "tool_use", id: call.id, name: fn.name, input: {} });
    } else if (this.#open?.call !== index) return undefined;
    if (typeof fn.arguments === "string" && fn.arguments !== "") out += this.#event("content_block_delta", { index: this.#open!.index, delta: { type: "input_json_delta", partial_json: fn.arguments } });
    return out;
  }

  #openBlock(call: number | undefined, block: Json): string {
    const out = this.#close();
    this.#open = { index: this.#blocks++, call };
    return out + this.#event("content_block_start", { index: this.#open.index, content_block: block });
  }

  #close(): string {
    if (!this.#open) return "";
    const { index } = this.#open;
    this.#open = undefined;
    return this.#event("content_block_stop", { index });
  }

  #fail(error: Json): string {
    this.#failed = true;
    return formatSseEvent(error, "error");
  }

  #event(type: string, fields: Json): string {
    return formatSseEvent({ type, ...fields }, type);
  }
}
