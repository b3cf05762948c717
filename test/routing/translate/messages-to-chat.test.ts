import { describe, expect, test } from "bun:test";
import { refusal, requestJson, translationOf } from "./support";

const messages = () => translationOf("anthropic_messages");
const ask = (fields: Record<string, unknown>, turns: unknown[] = [{ role: "user", content: "hi" }]) => requestJson(messages(), { model: "claude-x", max_tokens: 300, messages: turns, ...fields });

describe("Messages request → chat request", () => {
  test("model is the target's, max_tokens carried", () => {
    expect(ask({})).toEqual({ model: "target-model", max_tokens: 300, messages: [{ role: "user", content: "hi" }] });
  });

  test("system as a string or as text blocks becomes the leading system message", () => {
    expect(ask({ system: "Be brief." }).messages[0]).toEqual({ role: "system", content: "Be brief." });
    expect(ask({ system: [{ type: "text", text: "One." }, { type: "text", text: "Two.", cache_control: { type: "ephemeral" } }] }).messages[0]).toEqual({
      role: "system",
      content: [
        { type: "text", text: "One." },
        { type: "text", text: "Two." },
      ],
    });
  });

  test("user blocks: text and images (base64 → data: URL, url → URL)", () => {
    const json = ask({}, [
      {
        role: "user",
        content: [
          { type: "text", text: "Compare" },
          { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
          { type: "image", source: { type: "url", url: "https://example.com/b.png" } },
        ],
      },
    ]);
    expect(json.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Compare" },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" } },
          { type: "image_url", image_url: { url: "https://example.com/b.png" } },
        ],
      },
    ]);
  });

  test("assistant text and tool_use become content and tool_calls; tool_result blocks become tool messages before the user's text", () => {
    const json = ask({}, [
      { role: "user", content: "Weather in Oslo?" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "…", signature: "sig" },
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Oslo" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "-3°C" },
          { type: "text", text: "And tomorrow?" },
        ],
      },
    ]);
    expect(json.messages).toEqual([
      { role: "user", content: "Weather in Oslo?" },
      { role: "assistant", content: "Checking.", tool_calls: [{ id: "toolu_1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }] },
      { role: "tool", tool_call_id: "toolu_1", content: "-3°C" },
      { role: "user", content: [{ type: "text", text: "And tomorrow?" }] },
    ]);
  });

  test("an assistant turn of tool calls only has null content; tool_result with text blocks or no content", () => {
    const json = ask({}, [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "a", input: {} }, { type: "tool_use", id: "t2", name: "b", input: { x: 1 } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "done" }] }, { type: "tool_result", tool_use_id: "t2" }] },
    ]);
    expect(json.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "t1", type: "function", function: { name: "a", arguments: "{}" } },
          { id: "t2", type: "function", function: { name: "b", arguments: '{"x":1}' } },
        ],
      },
      { role: "tool", tool_call_id: "t1", content: [{ type: "text", text: "done" }] },
      { role: "tool", tool_call_id: "t2", content: "" },
    ]);
  });

  test("stop_sequences, temperature, top_p, metadata.user_id; stream asks for the usage chunk", () => {
    expect(ask({ stop_sequences: ["END"], temperature: 0.2, top_p: 0.8, metadata: { user_id: "u-9" }, stream: true })).toMatchObject({
      stop: ["END"],
      temperature: 0.2,
      top_p: 0.8,
      user: "u-9",
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  test("tools and tool_choice; disable_parallel_tool_use → parallel_tool_calls: false", () => {
    const tools = [{ name: "weather", description: "Weather", input_schema: { type: "object", properties: { city: { type: "string" } } }, cache_control: { type: "ephemeral" } }];
    const json = ask({ tools, tool_choice: { type: "any", disable_parallel_tool_use: true } });
    expect(json.tools).toEqual([{ type: "function", function: { name: "weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }]);
    expect(json.tool_choice).toBe("required");
    expect(json.parallel_tool_calls).toBe(false);
    expect(ask({ tools, tool_choice: { type: "auto" } }).tool_choice).toBe("auto");
    expect(ask({ tools, tool_choice: { type: "none" } }).tool_choice).toBe("none");
    expect(ask({ tools, tool_choice: { type: "tool", name: "weather" } }).tool_choice).toEqual({ type: "function", function: { name: "weather" } });
  });

  test("cache_control is dropped everywhere; thinking disabled and service_tier auto are accepted", () => {
    const json = ask({ cache_control: { type: "ephemeral" }, thinking: { type: "disabled" }, service_tier: "auto" }, [{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }]);
    expect(json).toEqual({ model: "target-model", max_tokens: 300, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
  });

  test.each([
    ["top_k", 5],
    ["thinking", { type: "enabled", budget_tokens: 2000 }],
    ["container", "c-1"],
    ["mcp_servers", [{ type: "url", url: "https://mcp.example", name: "m" }]],
    ["service_tier", "standard_only"],
    ["output_config", { format: { type: "json_schema", schema: {} } }],
    ["inference_geo", "us"],
    ["speed", "fast"],
    ["some_new_field", true],
  ])("%s (not at its default) is refused naming the field", (field, value) => {
    expect(refusal(() => ask({ [field]: value }))).toStartWith(`${field}: `);
    expect(refusal(() => ask({ [field]: value }))).toContain("cannot be translated to OpenAI chat completions");
  });

  test("blocks, tools and fields with no counterpart are refused naming them", () => {
    const user = (content: unknown[]) => [{ role: "user", content }];
    expect(refusal(() => ask({}, user([{ type: "document", source: { type: "text", media_type: "text/plain", data: "x" } }])))).toStartWith('messages[0].content[0].type: "document"');
    expect(refusal(() => ask({}, user([{ type: "image", source: { type: "file", file_id: "f" } }])))).toStartWith('messages[0].content[0].source.type: "file"');
    expect(refusal(() => ask({}, user([{ type: "tool_result", tool_use_id: "t", content: "boom", is_error: true }])))).toStartWith("messages[0].content[0].is_error: true");
    expect(refusal(() => ask({}, user([{ type: "tool_result", tool_use_id: "t", content: [{ type: "image", source: { type: "url", url: "https://x" } }] }])))).toStartWith(
      'messages[0].content[0].content[0].type: "image"',
    );
    expect(refusal(() => ask({}, user([{ type: "text", text: "x", citations: [{ type: "char_location" }] }])))).toStartWith("messages[0].content[0].citations:");
    expect(refusal(() => ask({ tools: [{ type: "web_search_20250305", name: "web_search" }] }))).toStartWith('tools[0].type: "web_search_20250305"');
    expect(refusal(() => ask({ tools: [{ name: "t", input_schema: {}, input_examples: [{}] }] }))).toStartWith("tools[0].input_examples:");
    expect(refusal(() => ask({ metadata: { user_id: "u", other: 1 } }))).toStartWith("metadata.other:");
    expect(refusal(() => ask({}, [{ role: "assistant", content: [{ type: "server_tool_use", id: "s", name: "web_search", input: {} }] }]))).toStartWith('messages[0].content[0].type: "server_tool_use"');
  });
});

describe("round trips", () => {
  test("a chat conversation with tools survives chat → Messages → chat", () => {
    const original = {
      model: "gpt-x",
      max_tokens: 500,
      temperature: 0.5,
      stop: ["STOP"],
      user: "u-1",
      tools: [{ type: "function", function: { name: "weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
      tool_choice: { type: "function", function: { name: "weather" } },
      parallel_tool_calls: false,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "text", text: "Look" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "-3°C" },
      ],
    };
    const there = requestJson(translationOf("openai_chat"), original, "claude-x");
    const back = requestJson(translationOf("anthropic_messages"), there, "gpt-x");
    expect(back).toEqual({
      ...original,
      messages: [
        { role: "system", content: [{ type: "text", text: "Be brief." }] },
        original.messages[1],
        original.messages[2],
        original.messages[3],
      ],
    });
  });

  test("a Messages conversation with tools survives Messages → chat → Messages", () => {
    const original = {
      model: "claude-x",
      max_tokens: 256,
      system: [{ type: "text", text: "Be brief." }],
      tools: [{ name: "weather", input_schema: { type: "object", properties: {} } }],
      tool_choice: { type: "tool", name: "weather", disable_parallel_tool_use: true },
      metadata: { user_id: "u-2" },
      stream: true,
      messages: [
        { role: "user", content: [{ type: "text", text: "Oslo?" }] },
        { role: "assistant", content: [{ type: "text", text: "Checking." }, { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Oslo" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "-3°C" }, { type: "text", text: "Thanks" }] },
      ],
    };
    const there = requestJson(translationOf("anthropic_messages"), original, "gpt-x");
    expect(requestJson(translationOf("openai_chat"), there, "claude-x")).toEqual(original);
  });
});
