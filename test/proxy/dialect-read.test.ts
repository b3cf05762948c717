import { describe, expect, test } from "bun:test";
import { cacheKeys } from "../../src/cache/request-key";
import { scannedTexts, systemPromptText } from "../../src/firewall/messages";
import { anthropicMessages } from "../../src/proxy/dialects/anthropic-messages";
import type { Dialect } from "../../src/proxy/dialects/dialect";
import { openaiChat } from "../../src/proxy/dialects/openai-chat";
import { openaiResponses } from "../../src/proxy/dialects/openai-responses";

const read = (dialect: Dialect, body: Record<string, unknown>) => dialect.read(dialect.schema.parse(body));

const user = (text: string) => ({ text, channel: "user" as const });
const data = (text: string) => ({ text, channel: "data" as const });

describe("what each dialect gives the firewall", () => {
  test("Responses: input string, user items with input_text parts, tool outputs; instructions and developer items only as system", () => {
    const view = read(openaiResponses, {
      model: "m",
      instructions: "Be brief.",
      input: [
        { role: "developer", content: "Answer in French." },
        { role: "user", content: [{ type: "input_text", text: "part one" }, { type: "input_image", image_url: "x" }, { type: "input_text", text: "part two" }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "an answer" }] },
        { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
        { type: "function_call_output", call_id: "c", output: "tool said this" },
      ],
    });
    expect(scannedTexts(view.texts, false)).toEqual([user("part one\npart two"), data("tool said this")]);
    expect(scannedTexts(view.texts, true)).toEqual([user("Be brief."), user("Answer in French."), user("part one\npart two"), data("tool said this")]);
    expect(systemPromptText(view.texts)).toBe("Be brief.\nAnswer in French.");
    expect(read(openaiResponses, { model: "m", input: "plain" }).texts).toEqual([{ system: false, text: "plain", channel: "user" }]);
  });

  test("Anthropic: user text blocks and text inside tool_result; system (string or blocks) only as system; assistant turns never", () => {
    const view = read(anthropicMessages, {
      model: "m",
      max_tokens: 9,
      system: [{ type: "text", text: "You are terse." }],
      messages: [
        { role: "user", content: [{ type: "text", text: "look this up" }, { type: "image", source: {} }] },
        { role: "assistant", content: [{ type: "text", text: "calling" }, { type: "tool_use", id: "t", name: "f", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "result text" }] },
      ],
    });
    expect(scannedTexts(view.texts, false)).toEqual([user("look this up"), data("result text")]);
    expect(systemPromptText(view.texts)).toBe("You are terse.");
  });
});

test("data blocks and files are data of their own: Anthropic document blocks, Responses input_file parts", () => {
  const anthropic = read(anthropicMessages, {
    model: "m",
    max_tokens: 9,
    messages: [{ role: "user", content: [{ type: "text", text: "summarise this" }, { type: "document", source: { type: "text", media_type: "text/plain", data: "the report" } }] }],
  });
  expect(scannedTexts(anthropic.texts, false)).toEqual([user("summarise this"), data("the report")]);
  const file = `data:text/plain;base64,${Buffer.from("file body").toString("base64")}`;
  const responses = read(openaiResponses, { model: "m", input: [{ role: "user", content: [{ type: "input_text", text: "read it" }, { type: "input_file", filename: "a.txt", file_data: file }] }] });
  expect(scannedTexts(responses.texts, false)).toEqual([user("read it"), data("file body")]);
});

describe("what each dialect gives the cache", () => {
  test("Responses requests that read the provider's stored state have no cache subject", () => {
    const base = { model: "m", input: "What now?" };
    expect(read(openaiResponses, base).cache).toBeDefined();
    expect(read(openaiResponses, { ...base, tools: [{ type: "function", name: "f", parameters: {} }] }).cache).toBeDefined();
    expect(read(openaiResponses, { ...base, store: true }).cache).toBeDefined();
    for (const extra of [
      { previous_response_id: "resp_1" },
      { conversation: "conv_1" },
      { prompt: { id: "pmpt_1" } },
      { background: true },
      { tools: [{ type: "file_search", vector_store_ids: ["vs"] }] },
      { input: [{ type: "item_reference", id: "msg_1" }, { role: "user", content: "and?" }] },
    ]) {
      expect(read(openaiResponses, { ...base, ...extra }).cache).toBeUndefined();
    }
  });

  test("Anthropic requests with server tools, MCP servers or a container have no cache subject", () => {
    const base = { model: "m", max_tokens: 9, messages: [{ role: "user", content: "What now?" }] };
    expect(read(anthropicMessages, base).cache).toBeDefined();
    expect(read(anthropicMessages, { ...base, tools: [{ name: "f", input_schema: {} }] }).cache).toBeDefined();
    for (const extra of [{ tools: [{ type: "web_search_20250305", name: "web_search" }] }, { mcp_servers: [{ url: "https://x" }] }, { container: "c1" }]) {
      expect(read(anthropicMessages, { ...base, ...extra }).cache).toBeUndefined();
    }
  });

  test("the same words through two APIs never share a cache key; the semantic prompt is the last user turn of text", () => {
    const keysOf = (dialect: Dialect, body: Record<string, unknown>) => {
      const view = read(dialect, body);
      return cacheKeys({ workspaceId: "w", upstreamUrl: "u", api: view.api, model: view.model, subject: view.cache!, vectorSpace: "v" });
    };
    const chat = keysOf(openaiChat, { model: "m", messages: [{ role: "user", content: "Why is the sky blue?" }] });
    const responses = keysOf(openaiResponses, { model: "m", input: [{ role: "user", content: "Why is the sky blue?" }] });
    expect(responses.exactKey).not.toBe(chat.exactKey);
    expect(responses.scopeKey).not.toBe(chat.scopeKey);
    expect(responses.prompt).toBe("Why is the sky blue?");
    expect(keysOf(openaiResponses, { model: "m", input: "Why is the sky blue?" }).prompt).toBe("Why is the sky blue?");
    expect(keysOf(openaiResponses, { model: "m", input: [{ role: "user", content: [{ type: "input_image", image_url: "x" }] }] }).prompt).toBeUndefined();
    expect(keysOf(anthropicMessages, { model: "m", max_tokens: 9, messages: [{ role: "user", content: [{ type: "text", text: "Why?" }] }] }).prompt).toBe("Why?");
    expect(keysOf(anthropicMessages, { model: "m", max_tokens: 9, messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "42" }] }] }).prompt).toBeUndefined();
  });
});
