import { APIError as AnthropicAPIError } from "@anthropic-ai/sdk";
import { describe, expect, test } from "bun:test";
import { APIError as OpenAIAPIError } from "openai";
import { anthropicClient, jsonResponse, openaiClient, translationOf } from "./support";

const messageAnswer = (content: unknown[], stop_reason = "end_turn", usage: object = { input_tokens: 10, output_tokens: 4 }) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-target",
  content,
  stop_reason,
  stop_sequence: null,
  usage,
});

const chatAnswer = (message: object, finish_reason = "stop", usage: object = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 }) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "gpt-target",
  choices: [{ index: 0, message: { role: "assistant", refusal: null, ...message }, finish_reason, logprobs: null }],
  usage,
});

describe("Messages answer → chat completion", () => {
  const toChat = (json: unknown) => translationOf("openai_chat").answer(json, "gpt-asked");

  test("text blocks joined, the requested model, usage with cache tokens in the prompt", () => {
    const answer = toChat(messageAnswer([{ type: "thinking", thinking: "hm", signature: "s" }, { type: "text", text: "Hello " }, { type: "text", text: "there." }], "end_turn", { input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 }));
    expect(answer).toMatchObject({
      id: "msg_1",
      object: "chat.completion",
      model: "gpt-asked",
      choices: [{ index: 0, message: { role: "assistant", content: "Hello there." }, finish_reason: "stop" }],
      usage: { prompt_tokens: 130, completion_tokens: 4, total_tokens: 134, prompt_tokens_details: { cached_tokens: 100 } },
    });
    expect(answer!.created).toBeNumber();
  });

  test("tool_use → tool_calls with JSON-string arguments and null content", () => {
    const answer = toChat(messageAnswer([{ type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Oslo" } }], "tool_use"));
    expect(answer!.choices).toEqual([
      { index: 0, message: { role: "assistant", content: null, refusal: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }] }, finish_reason: "tool_calls", logprobs: null },
    ]);
  });

  test.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
    ["tool_use", "tool_calls"],
    ["refusal", "content_filter"],
  ])("stop_reason %s → finish_reason %s", (stop, finish) => {
    expect((toChat(messageAnswer([{ type: "text", text: "x" }], stop))!.choices as { finish_reason: string }[])[0]!.finish_reason).toBe(finish);
  });

  test("anything that is not a message is not an answer", () => {
    expect(toChat({ type: "error", error: { type: "api_error", message: "x" } })).toBeUndefined();
    expect(toChat(chatAnswer({ content: "x" }))).toBeUndefined();
    expect(toChat("text")).toBeUndefined();
  });

  test("the openai SDK reads the translated answer", async () => {
    const answer = toChat(messageAnswer([{ type: "text", text: "Hi" }, { type: "tool_use", id: "toolu_9", name: "f", input: { a: [1, "ü"] } }], "tool_use"));
    const completion = await openaiClient(() => jsonResponse(answer)).chat.completions.create({ model: "gpt-asked", messages: [{ role: "user", content: "x" }] });
    expect(completion.choices[0]!.message.content).toBe("Hi");
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.type === "function" && JSON.parse(call.function.arguments)).toEqual({ a: [1, "ü"] });
  });
});

describe("chat completion → Messages answer", () => {
  const toMessages = (json: unknown) => translationOf("anthropic_messages").answer(json, "claude-asked");

  test("content as a text block, the requested model, usage split into input and cache reads", () => {
    expect(toMessages(chatAnswer({ content: "Hello." }, "stop", { prompt_tokens: 120, completion_tokens: 5, total_tokens: 125, prompt_tokens_details: { cached_tokens: 100 } }))).toEqual({
      id: "chatcmpl-1",
      type: "message",
      role: "assistant",
      model: "claude-asked",
      content: [{ type: "text", text: "Hello." }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 20, output_tokens: 5, cache_read_input_tokens: 100 },
    });
  });

  test("tool_calls → tool_use blocks with parsed input; a refusal is text ending in refusal", () => {
    const calls = toMessages(chatAnswer({ content: "", tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }] }, "tool_calls"));
    expect(calls).toMatchObject({ content: [{ type: "tool_use", id: "call_1", name: "weather", input: { city: "Oslo" } }], stop_reason: "tool_use" });
    expect(toMessages(chatAnswer({ content: null, refusal: "I can't help with that." }))).toMatchObject({ content: [{ type: "text", text: "I can't help with that." }], stop_reason: "refusal" });
  });

  test.each([
    ["stop", "end_turn"],
    ["length", "max_tokens"],
    ["tool_calls", "tool_use"],
    ["content_filter", "refusal"],
  ])("finish_reason %s → stop_reason %s", (finish, stop) => {
    expect(toMessages(chatAnswer({ content: "x" }, finish))!.stop_reason).toBe(stop);
  });

  test("broken tool arguments, or no choices, are not an answer", () => {
    expect(toMessages(chatAnswer({ content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{oops" } }] }, "tool_calls"))).toBeUndefined();
    expect(toMessages({ error: { message: "x" } })).toBeUndefined();
    expect(toMessages({ choices: [] })).toBeUndefined();
  });

  test("tool calls survive Messages answer → chat → Messages", () => {
    const original = messageAnswer([{ type: "text", text: "Checking." }, { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Oslo", days: [1, 2] } }], "tool_use");
    const chat = translationOf("openai_chat").answer(original, "gpt-x");
    expect(translationOf("anthropic_messages").answer(chat, "claude-target")).toEqual({ ...original, usage: { input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 0 } });
  });

  test("the Anthropic SDK reads the translated answer", async () => {
    const answer = toMessages(chatAnswer({ content: "Hi", tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: '{"a":1}' } }] }, "tool_calls"));
    const message = await anthropicClient(() => jsonResponse(answer)).messages.create({ model: "claude-asked", max_tokens: 10, messages: [{ role: "user", content: "x" }] });
    expect(message.content).toEqual([
      { type: "text", text: "Hi" },
      { type: "tool_use", id: "call_1", name: "f", input: { a: 1 } },
    ] as never);
    expect(message.stop_reason).toBe("tool_use");
  });
});

describe("error bodies", () => {
  test("Anthropic errors → OpenAI's shape, the type by status and Anthropic's type as the code", () => {
    const error = (type: string, status: number) => translationOf("openai_chat").error({ type: "error", error: { type, message: `${type} happened` } }, status);
    expect(error("invalid_request_error", 400)).toEqual({ error: { message: "invalid_request_error happened", type: "invalid_request_error", param: null, code: "invalid_request_error" } });
    expect(error("authentication_error", 401)).toMatchObject({ error: { type: "authentication_error" } });
    expect(error("rate_limit_error", 429)).toMatchObject({ error: { type: "rate_limit_error", code: "rate_limit_error" } });
    expect(error("overloaded_error", 529)).toMatchObject({ error: { type: "server_error", code: "overloaded_error" } });
    expect(translationOf("openai_chat").error("not json", 502)).toMatchObject({ error: { message: '"not json"', type: "server_error", code: null } });
  });

  test("OpenAI errors → Anthropic's shape, the type by status", () => {
    const error = (status: number) => translationOf("anthropic_messages").error({ error: { message: "nope", type: "whatever", code: "x" } }, status);
    expect(error(400)).toEqual({ type: "error", error: { type: "invalid_request_error", message: "nope" } });
    expect([401, 402, 403, 404, 413, 429, 500, 503, 504, 529].map((status) => (error(status).error as { type: string }).type)).toEqual([
      "authentication_error",
      "billing_error",
      "permission_error",
      "not_found_error",
      "request_too_large",
      "rate_limit_error",
      "api_error",
      "api_error",
      "timeout_error",
      "overloaded_error",
    ]);
    expect(translationOf("anthropic_messages").error(undefined, 500)).toEqual({ type: "error", error: { type: "api_error", message: "the provider answered with status 500" } });
  });

  test("each SDK raises the translated error with its message", async () => {
    const toChat = translationOf("openai_chat").error({ type: "error", error: { type: "rate_limit_error", message: "slow down" } }, 429);
    const openaiError = await openaiClient(() => jsonResponse(toChat, 429))
      .chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] })
      .catch((error: unknown) => error);
    expect(openaiError).toBeInstanceOf(OpenAIAPIError);
    expect(openaiError).toMatchObject({ status: 429, message: expect.stringContaining("slow down") });

    const toMessages = translationOf("anthropic_messages").error({ error: { message: "bad key", type: "invalid_request_error", code: "invalid_api_key" } }, 401);
    const anthropicError = await anthropicClient(() => jsonResponse(toMessages, 401))
      .messages.create({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] })
      .catch((error: unknown) => error);
    expect(anthropicError).toBeInstanceOf(AnthropicAPIError);
    expect(anthropicError).toMatchObject({ status: 401, message: expect.stringContaining("bad key") });
  });
});
