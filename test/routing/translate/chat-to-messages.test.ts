import { describe, expect, test } from "bun:test";
import { DEFAULT_MAX_TOKENS } from "../../../src/routing/translate/chat-to-messages";
import { newTranslation } from "../../../src/routing/translate";
import { refusal, requestJson, translationOf } from "./support";

const chat = () => translationOf("openai_chat");
const ask = (fields: Record<string, unknown>, messages: unknown[] = [{ role: "user", content: "hi" }]) => requestJson(chat(), { model: "gpt-x", messages, ...fields });

describe("which translations exist", () => {
  test("chat ↔ Messages across families; none within a family or for the Responses API", () => {
    expect(newTranslation("openai_chat", "anthropic")?.path).toBe("/v1/messages");
    expect(newTranslation("openai_chat", "anthropic")?.extraHeaders).toEqual({ "anthropic-version": "2023-06-01" });
    expect(newTranslation("anthropic_messages", "openai")?.path).toBe("/chat/completions");
    expect(newTranslation("openai_chat", "openai")).toBeUndefined();
    expect(newTranslation("anthropic_messages", "anthropic")).toBeUndefined();
    expect(newTranslation("openai_responses", "anthropic")).toBeUndefined();
    expect(newTranslation("openai_responses", "openai")).toBeUndefined();
  });
});

describe("chat request → Messages request", () => {
  test("model is the target's; max_tokens gets Anthropic's required default", () => {
    expect(ask({})).toEqual({ model: "target-model", max_tokens: DEFAULT_MAX_TOKENS, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
  });

  test("leading system and developer messages become the system prompt, in order", () => {
    const json = ask({}, [
      { role: "system", content: "Be brief." },
      { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
      { role: "user", content: "hi" },
    ]);
    expect(json.system).toEqual([
      { type: "text", text: "Be brief." },
      { type: "text", text: "Answer in French." },
    ]);
    expect(json.messages).toHaveLength(1);
  });

  test("a system message after the first turn is refused rather than moved", () => {
    expect(refusal(() => ask({}, [{ role: "user", content: "hi" }, { role: "system", content: "late" }]))).toBe(
      "messages[1]: a system message after the first turn cannot be translated to Anthropic's Messages API (its system prompt comes before the conversation)",
    );
  });

  test("multi-part user content: text, a data: URL image (base64) and an http image (url)", () => {
    const json = ask({}, [
      {
        role: "user",
        content: [
          { type: "text", text: "What is in these?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "high" } },
          { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
        ],
      },
    ]);
    expect(json.messages[0].content).toEqual([
      { type: "text", text: "What is in these?" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
    ]);
  });

  test("images Messages cannot read, and audio or file parts, are refused naming the part", () => {
    const image = (url: string) => [{ role: "user", content: [{ type: "image_url", image_url: { url } }] }];
    expect(refusal(() => ask({}, image("data:image/bmp;base64,Qk0=")))).toStartWith("messages[0].content[0].image_url.url: an image of type image/bmp cannot be translated");
    expect(refusal(() => ask({}, image("ftp://example.com/a.png")))).toStartWith("messages[0].content[0].image_url.url:");
    expect(refusal(() => ask({}, [{ role: "user", content: [{ type: "text", text: "listen" }, { type: "input_audio", input_audio: { data: "", format: "wav" } }] }]))).toStartWith(
      'messages[0].content[1].type: "input_audio" cannot be translated',
    );
    expect(refusal(() => ask({}, [{ role: "user", content: [{ type: "file", file: { file_id: "f" } }] }]))).toStartWith('messages[0].content[0].type: "file"');
  });

  test("assistant tool calls become tool_use blocks; tool messages become tool_result blocks merged into one user turn", () => {
    const json = ask({}, [
      { role: "user", content: "Weather in Paris and Rome?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
          { id: "call_2", type: "function", function: { name: "weather", arguments: '{"city":"Rome"}' } },
        ],
        refusal: null,
      },
      { role: "tool", tool_call_id: "call_1", content: "18°C" },
      { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "24°C" }] },
      { role: "user", content: "Which is warmer?" },
    ]);
    expect(json.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Paris and Rome?" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "call_1", name: "weather", input: { city: "Paris" } },
          { type: "tool_use", id: "call_2", name: "weather", input: { city: "Rome" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_1", content: "18°C" },
          { type: "tool_result", tool_use_id: "call_2", content: [{ type: "text", text: "24°C" }] },
          { type: "text", text: "Which is warmer?" },
        ],
      },
    ]);
  });

  test("assistant text beside a tool call is kept before the call", () => {
    const json = ask({}, [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "text", text: "Let me look." }], tool_calls: [{ id: "c", type: "function", function: { name: "look", arguments: "" } }] },
    ]);
    expect(json.messages[1].content).toEqual([
      { type: "text", text: "Let me look." },
      { type: "tool_use", id: "c", name: "look", input: {} },
    ]);
  });

  test("tool call arguments that are not a JSON object are refused naming them", () => {
    const call = (args: string) => [{ role: "user", content: "x" }, { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: args } }] }];
    expect(refusal(() => ask({}, call("{broken")))).toStartWith("messages[1].tool_calls[0].function.arguments:");
    expect(refusal(() => ask({}, call("[1,2]")))).toStartWith("messages[1].tool_calls[0].function.arguments: ");
  });

  test("sampling and limits: max_completion_tokens wins, temperature up to 1, top_p, stop as a list", () => {
    expect(ask({ max_tokens: 100, max_completion_tokens: 200, temperature: 0.7, top_p: 0.9, stop: "END" })).toMatchObject({ max_tokens: 200, temperature: 0.7, top_p: 0.9, stop_sequences: ["END"] });
    expect(ask({ max_tokens: 100, stop: ["a", "b"] })).toMatchObject({ max_tokens: 100, stop_sequences: ["a", "b"] });
    expect(refusal(() => ask({ temperature: 1.5 }))).toBe("temperature: 1.5 cannot be translated to Anthropic's Messages API (its temperature goes up to 1)");
  });

  test("tools, tool_choice and parallel_tool_calls", () => {
    const tools = [{ type: "function", function: { name: "weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: true } }, { type: "function", function: { name: "now" } }];
    const json = ask({ tools, tool_choice: "required", parallel_tool_calls: false });
    expect(json.tools).toEqual([
      { name: "weather", description: "Weather of a city", input_schema: { type: "object", properties: { city: { type: "string" } } }, strict: true },
      { name: "now", input_schema: { type: "object", properties: {} } },
    ]);
    expect(json.tool_choice).toEqual({ type: "any", disable_parallel_tool_use: true });
    expect(ask({ tools, tool_choice: "auto" }).tool_choice).toEqual({ type: "auto" });
    expect(ask({ tools, tool_choice: "none", parallel_tool_calls: false }).tool_choice).toEqual({ type: "none" });
    expect(ask({ tools, tool_choice: { type: "function", function: { name: "now" } } }).tool_choice).toEqual({ type: "tool", name: "now" });
    expect(ask({ tools, parallel_tool_calls: false }).tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(ask({ tools, parallel_tool_calls: true }).tool_choice).toBeUndefined();
    expect(refusal(() => ask({ tools: [{ type: "custom", custom: { name: "grammar" } }] }))).toStartWith('tools[0].type: "custom" cannot be translated');
    expect(refusal(() => ask({ tools, tool_choice: { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [] } } }))).toStartWith("tool_choice:");
  });

  test("stream, user and safety_identifier; stream_options is read, not forwarded", () => {
    expect(ask({ stream: true, stream_options: { include_usage: true }, user: "u-1" })).toMatchObject({ stream: true, metadata: { user_id: "u-1" } });
    expect(ask({ stream: true, stream_options: { include_usage: true } }).stream_options).toBeUndefined();
    expect(ask({ safety_identifier: "s-1" }).metadata).toEqual({ user_id: "s-1" });
    expect(refusal(() => ask({ user: "a", safety_identifier: "b" }))).toStartWith("safety_identifier:");
  });

  test("null means not given; defaults and cache hints are accepted", () => {
    const json = ask({ n: 1, logprobs: false, temperature: null, seed: null, response_format: { type: "text" }, store: false, modalities: ["text"], service_tier: "auto", prompt_cache_key: "k", frequency_penalty: 0 });
    expect(Object.keys(json).sort()).toEqual(["max_tokens", "messages", "model"]);
  });

  test.each([
    ["n", 2],
    ["logprobs", true],
    ["top_logprobs", 3],
    ["response_format", { type: "json_object" }],
    ["seed", 7],
    ["presence_penalty", 0.5],
    ["frequency_penalty", 0.5],
    ["logit_bias", { "50256": -100 }],
    ["audio", { voice: "alloy", format: "mp3" }],
    ["modalities", ["text", "audio"]],
    ["prediction", { type: "content", content: "x" }],
    ["web_search_options", {}],
    ["functions", [{ name: "f" }]],
    ["function_call", "auto"],
    ["store", true],
    ["metadata", { k: "v" }],
    ["service_tier", "flex"],
    ["reasoning_effort", "high"],
    ["verbosity", "low"],
    ["some_new_field", 1],
  ])("%s (not at its default) is refused naming the field", (field, value) => {
    expect(refusal(() => ask({ [field]: value }))).toStartWith(`${field}: `);
    expect(refusal(() => ask({ [field]: value }))).toContain("cannot be translated to Anthropic's Messages API");
  });

  test("fields of messages and parts with no counterpart are refused naming them", () => {
    expect(refusal(() => ask({}, [{ role: "user", content: "hi", name: "alice" }]))).toStartWith('messages[0].name: "alice" cannot be translated');
    expect(refusal(() => ask({}, [{ role: "function", name: "f", content: "x" }]))).toStartWith('messages[0].role: "function"');
    expect(refusal(() => ask({}, [{ role: "user", content: "hi" }, { role: "assistant", content: null, audio: { id: "a" } }]))).toStartWith("messages[1].audio:");
    expect(refusal(() => ask({}, [{ role: "user", content: [{ type: "text", text: "hi", cache: 1 }] }]))).toStartWith("messages[0].content[0].cache:");
  });
});
