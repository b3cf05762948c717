import { APIError as AnthropicAPIError } from "@anthropic-ai/sdk";
import { describe, expect, test } from "bun:test";
import { APIError as OpenAIAPIError } from "openai";
import { SseEventTooLong } from "../../../src/proxy/sse";
import { anthropicClient, anthropicEvent, byteStream, eventStream, openaiClient, readText, sse, sseEvents, translationOf } from "./support";

/** Cut sizes: every byte, a few bytes (mid-event, mid-UTF-8 character), and whole. */
const CUTS = [1, 3, 7, 1_000_000];

const MESSAGES_STREAM = [
  anthropicEvent("message_start", { message: { id: "msg_1", type: "message", role: "assistant", model: "claude-target", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 11, cache_read_input_tokens: 4, output_tokens: 1 } } }),
  anthropicEvent("ping"),
  anthropicEvent("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }),
  anthropicEvent("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "secret plan" } }),
  anthropicEvent("content_block_delta", { index: 0, delta: { type: "signature_delta", signature: "sig" } }),
  anthropicEvent("content_block_stop", { index: 0 }),
  anthropicEvent("content_block_start", { index: 1, content_block: { type: "text", text: "" } }),
  anthropicEvent("content_block_delta", { index: 1, delta: { type: "text_delta", text: "Grüße 🌍 " } }),
  anthropicEvent("content_block_delta", { index: 1, delta: { type: "text_delta", text: "aus Köln." } }),
  anthropicEvent("content_block_stop", { index: 1 }),
  anthropicEvent("content_block_start", { index: 2, content_block: { type: "tool_use", id: "toolu_1", name: "weather", input: {} } }),
  anthropicEvent("content_block_delta", { index: 2, delta: { type: "input_json_delta", partial_json: "" } }),
  anthropicEvent("content_block_delta", { index: 2, delta: { type: "input_json_delta", partial_json: '{"city":' } }),
  anthropicEvent("content_block_delta", { index: 2, delta: { type: "input_json_delta", partial_json: '"Zürich"}' } }),
  anthropicEvent("content_block_stop", { index: 2 }),
  anthropicEvent("message_delta", { delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 9 } }),
  anthropicEvent("message_stop"),
].join("");

const CHAT_STREAM = [
  sse({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-target", choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }),
  sse({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-target", choices: [{ index: 0, delta: { content: "Grüße 🌍 " }, finish_reason: null }] }),
  sse({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-target", choices: [{ index: 0, delta: { content: "aus Köln." }, finish_reason: null }] }),
  sse({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-target", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "weather", arguments: "" } }] }, finish_reason: null }] }),
  sse({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-target", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, finish_reason: null }] }),
  sse({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-target", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"Zürich"}' } }] }, finish_reason: null }] }),
  sse({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-target", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }),
  sse({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-target", choices: [], usage: { prompt_tokens: 15, completion_tokens: 9, total_tokens: 24, prompt_tokens_details: { cached_tokens: 4 } } }),
  sse("[DONE]"),
].join("");

/** A chat translation that saw the client's request (which decides the usage chunk). */
function chatTranslation(includeUsage: boolean) {
  const translation = translationOf("openai_chat");
  translation.request({ model: "gpt-asked", messages: [{ role: "user", content: "x" }], stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) }, "claude-target");
  return translation;
}

const withoutCreated = (events: { data: any }[]) => events.map(({ data }) => (typeof data === "object" ? { ...data, created: 0 } : data));

describe("Messages stream → chat chunks", () => {
  const translated = (cut: number, includeUsage = true) => readText(chatTranslation(includeUsage).stream(byteStream(MESSAGES_STREAM, cut), "gpt-asked"));

  test("role first, content deltas, the tool call's id and name then its argument pieces, finish_reason, usage, [DONE]", async () => {
    const events = sseEvents(await translated(1_000_000));
    const base = { id: "msg_1", object: "chat.completion.chunk", created: 0, model: "gpt-asked" };
    const chunk = (delta: object, finish_reason: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason, logprobs: null }] });
    expect(withoutCreated(events)).toEqual([
      chunk({ role: "assistant", content: "" }),
      chunk({ content: "Grüße 🌍 " }),
      chunk({ content: "aus Köln." }),
      chunk({ tool_calls: [{ index: 0, id: "toolu_1", type: "function", function: { name: "weather", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Zürich"}' } }] }),
      chunk({}, "tool_calls"),
      { ...base, choices: [], usage: { prompt_tokens: 15, completion_tokens: 9, total_tokens: 24, prompt_tokens_details: { cached_tokens: 4 } } },
      "[DONE]",
    ]);
    expect(events.every((event) => event.event === undefined)).toBe(true);
  });

  test.each(CUTS)("bytes cut every %d give the same events", async (cut) => {
    expect(withoutCreated(sseEvents(await translated(cut)))).toEqual(withoutCreated(sseEvents(await translated(1_000_000))));
  });

  test("no usage chunk unless the client asked for it", async () => {
    const events = sseEvents(await translated(5, false));
    expect(events.some(({ data }) => Array.isArray(data?.choices) && data.choices.length === 0)).toBe(false);
    expect(events.at(-1)!.data).toBe("[DONE]");
  });

  test("the openai SDK's ChatCompletionStream accumulates the translated stream", async () => {
    const client = openaiClient(() => eventStream(chatTranslation(true).stream(byteStream(MESSAGES_STREAM, 3), "gpt-asked")));
    const stream = client.chat.completions.stream({ model: "gpt-asked", messages: [{ role: "user", content: "x" }], stream_options: { include_usage: true } });
    const completion = await stream.finalChatCompletion();
    const { message, finish_reason } = completion.choices[0]!;
    expect(message.content).toBe("Grüße 🌍 aus Köln.");
    expect(message.tool_calls).toMatchObject([{ id: "toolu_1", type: "function", function: { name: "weather", arguments: '{"city":"Zürich"}' } }]);
    expect(finish_reason).toBe("tool_calls");
    expect(completion.usage).toMatchObject({ prompt_tokens: 15, completion_tokens: 9, total_tokens: 24 });
    expect(completion.model).toBe("gpt-asked");
  });

  test("an Anthropic error event becomes an error the openai SDK raises", async () => {
    const upstream = MESSAGES_STREAM.slice(0, MESSAGES_STREAM.indexOf("event: content_block_start")) + sse({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "error");
    const text = await readText(chatTranslation(false).stream(byteStream(upstream, 4), "gpt-asked"));
    expect(sseEvents(text).at(-1)!.data).toEqual({ error: { message: "Overloaded", type: "server_error", param: null, code: "overloaded_error" } });

    const client = openaiClient(() => eventStream(text));
    const stream = await client.chat.completions.create({ model: "gpt-asked", messages: [{ role: "user", content: "x" }], stream: true });
    const failure = await (async () => {
      for await (const _ of stream);
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAIAPIError);
    expect((failure as Error).message).toContain("Overloaded");
  });

  test("a stream cut before message_stop ends without [DONE]", async () => {
    const cut = MESSAGES_STREAM.slice(0, MESSAGES_STREAM.indexOf("event: message_stop"));
    const events = sseEvents(await readText(chatTranslation(true).stream(byteStream(cut, 7), "gpt-asked")));
    expect(events.some(({ data }) => data === "[DONE]")).toBe(false);
    expect(events.at(-1)!.data.choices[0].finish_reason).toBe("tool_calls");
  });
});

describe("chat stream → Messages events", () => {
  const messagesTranslation = () => translationOf("anthropic_messages");
  const translated = (cut: number) => readText(messagesTranslation().stream(byteStream(CHAT_STREAM, cut), "claude-asked"));

  test("message_start, a text block, a tool_use block with input_json_delta, message_delta with stop reason and usage, message_stop", async () => {
    const events = sseEvents(await translated(1_000_000));
    expect(events.map(({ event, data }) => [event, data.type])).toEqual(
      ["message_start", "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop"].map((type) => [type, type]),
    );
    expect(events.map(({ data }) => data)).toEqual([
      { type: "message_start", message: { id: "chatcmpl-1", type: "message", role: "assistant", model: "claude-asked", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Grüße 🌍 " } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "aus Köln." } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "call_1", name: "weather", input: {} } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"city":' } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '"Zürich"}' } },
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { input_tokens: 11, output_tokens: 9, cache_read_input_tokens: 4 } },
      { type: "message_stop" },
    ]);
  });

  test.each(CUTS)("bytes cut every %d give the same events", async (cut) => {
    expect(sseEvents(await translated(cut))).toEqual(sseEvents(await translated(1_000_000)));
  });

  test("the Anthropic SDK's MessageStream accumulates the translated stream", async () => {
    const client = anthropicClient(() => eventStream(messagesTranslation().stream(byteStream(CHAT_STREAM, 3), "claude-asked")));
    const message = await client.messages.stream({ model: "claude-asked", max_tokens: 100, messages: [{ role: "user", content: "x" }] }).finalMessage();
    expect(message.content).toEqual([
      { type: "text", text: "Grüße 🌍 aus Köln." },
      { type: "tool_use", id: "call_1", name: "weather", input: { city: "Zürich" } },
    ] as never);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage).toMatchObject({ input_tokens: 11, output_tokens: 9, cache_read_input_tokens: 4 });
    expect(message.model).toBe("claude-asked");
  });

  test("a chat error chunk becomes an error event the Anthropic SDK raises, and nothing follows it", async () => {
    const upstream = CHAT_STREAM.slice(0, CHAT_STREAM.indexOf("data:", 10)) + sse({ error: { message: "Rate limit reached", type: "rate_limit_error", code: null } }) + sse("[DONE]");
    const text = await readText(messagesTranslation().stream(byteStream(upstream, 5), "claude-asked"));
    const events = sseEvents(text);
    expect(events.at(-1)).toEqual({ event: "error", data: { type: "error", error: { type: "rate_limit_error", message: "Rate limit reached" } } });

    const client = anthropicClient(() => eventStream(text));
    const failure = await client.messages.stream({ model: "claude-asked", max_tokens: 100, messages: [{ role: "user", content: "x" }] }).finalMessage().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AnthropicAPIError);
    expect((failure as Error).message).toContain("Rate limit reached");
  });

  test("a refusal streams as text and ends with stop_reason refusal", async () => {
    const upstream = [sse({ id: "c", choices: [{ index: 0, delta: { role: "assistant", refusal: "I can't." }, finish_reason: null }] }), sse({ id: "c", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }), sse("[DONE]")].join("");
    const events = sseEvents(await readText(messagesTranslation().stream(byteStream(upstream, 9), "claude-asked")));
    expect(events.find(({ data }) => data.type === "content_block_delta")!.data.delta).toEqual({ type: "text_delta", text: "I can't." });
    expect(events.find(({ data }) => data.type === "message_delta")!.data.delta.stop_reason).toBe("refusal");
  });

  test("argument pieces of two interleaved tool calls end the stream with an error event", async () => {
    const call = (index: number, fields: object) => sse({ id: "c", choices: [{ index: 0, delta: { tool_calls: [{ index, ...fields }] }, finish_reason: null }] });
    const upstream = [call(0, { id: "a", type: "function", function: { name: "f", arguments: "" } }), call(1, { id: "b", type: "function", function: { name: "g", arguments: "{}" } }), call(0, { function: { arguments: "{}" } }), sse("[DONE]")].join("");
    const events = sseEvents(await readText(messagesTranslation().stream(byteStream(upstream, 11), "claude-asked")));
    expect(events.at(-1)!.event).toBe("error");
    expect(events.some(({ data }) => data.type === "message_stop")).toBe(false);
  });

  test("a stream cut before [DONE] ends without message_stop", async () => {
    const cut = CHAT_STREAM.slice(0, CHAT_STREAM.indexOf("data: [DONE]"));
    const events = sseEvents(await readText(messagesTranslation().stream(byteStream(cut, 7), "claude-asked")));
    expect(events.some(({ data }) => data.type === "message_stop" || data.type === "message_delta")).toBe(false);
  });
});

describe("relaying", () => {
  /** An endless upstream that counts how often it is read and whether it was cancelled. */
  function endlessUpstream() {
    const state = { pulls: 0, cancelled: undefined as unknown };
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          state.pulls++;
          controller.enqueue(new TextEncoder().encode(anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: "more " } })));
        },
        cancel(reason) {
          state.cancelled = reason ?? true;
        },
      },
      { highWaterMark: 0 },
    );
    return { stream, state };
  }

  test("upstream is read only as the client reads, and cancelling the client's stream cancels upstream", async () => {
    const { stream, state } = endlessUpstream();
    const reader = chatTranslation(false).stream(stream, "gpt-asked").getReader();
    for (let i = 0; i < 3; i++) expect(new TextDecoder().decode((await reader.read()).value)).toContain('"content":"more "');
    expect(state.pulls).toBe(3);
    await reader.cancel("client left");
    expect(state.cancelled).toBe("client left");
  });

  test("an unfinished upstream event longer than maxEventChars errors the stream and cancels upstream", async () => {
    let cancelled = false;
    const endlessEvent = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: {"type":"content_block_delta","delta":{"text":"'));
      },
      pull(controller) {
        controller.enqueue(new TextEncoder().encode("a".repeat(1000)));
      },
      cancel() {
        cancelled = true;
      },
    });
    const failure = await readText(translationOf("anthropic_messages").stream(endlessEvent, "claude-asked", { maxEventChars: 10_000 })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SseEventTooLong);
    expect(cancelled).toBe(true);
  });

  test("an upstream failure errors the translated stream", async () => {
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(MESSAGES_STREAM.slice(0, 400)));
      },
      pull(controller) {
        controller.error(new Error("connection reset"));
      },
    });
    await expect(readText(chatTranslation(false).stream(broken, "gpt-asked"))).rejects.toThrow("connection reset");
  });
});
