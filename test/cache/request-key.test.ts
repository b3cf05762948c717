import { describe, expect, test } from "bun:test";
import { cacheKeys, DELIVERY_ONLY_FIELDS } from "../../src/cache/request-key";
import type { Dialect } from "../../src/proxy/dialects/dialect";
import { openaiChat } from "../../src/proxy/dialects/openai-chat";

const keys = (body: Record<string, unknown>, workspaceId = "w1", upstreamUrl = "https://provider.test/v1", dialect: Dialect = openaiChat) => {
  const view = dialect.read(dialect.schema.parse(body));
  return cacheKeys({ workspaceId, upstreamUrl, api: view.api, model: view.model, subject: view.cache!, vectorSpace: "all-MiniLM-L6-v2/int8" });
};

const question = { model: "m", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Why is the sky blue?" }] };

describe("cache keys", () => {
  test("delivery-only fields leave both keys unchanged", () => {
    const base = keys(question);
    for (const field of DELIVERY_ONLY_FIELDS) expect(keys({ ...question, [field]: field === "stream" ? true : { any: "value" } })).toEqual(base);
  });

  test("workspace, upstream, model, any other parameter and any message change the exact key", () => {
    const base = keys(question).exactKey;
    const variants = [
      keys(question, "w2"),
      keys(question, "w1", "https://other.test/v1"),
      keys({ ...question, model: "m2" }),
      keys({ ...question, temperature: 0 }),
      keys({ ...question, some_future_parameter: 1 }),
      keys({ ...question, messages: [question.messages[0], { role: "user", content: "Why is the sea blue?" }] }),
    ];
    for (const variant of variants) expect(variant.exactKey).not.toBe(base);
  });

  test("the scope key ignores the last user message's text only", () => {
    const base = keys(question);
    const paraphrase = keys({ ...question, messages: [question.messages[0], { role: "user", content: "What makes the sky blue?" }] });
    expect(paraphrase.scopeKey).toBe(base.scopeKey);
    expect(paraphrase.exactKey).not.toBe(base.exactKey);
    expect(keys({ ...question, messages: [{ role: "system", content: "Be long." }, question.messages[1]] }).scopeKey).not.toBe(base.scopeKey);
    expect(keys({ ...question, top_p: 0.1 }).scopeKey).not.toBe(base.scopeKey);
    expect(keys(question, "w2").scopeKey).not.toBe(base.scopeKey);
  });

  test("object key order does not matter, array order does", () => {
    const reordered = { messages: [{ content: "Be brief.", role: "system" }, { content: "Why is the sky blue?", role: "user" }], model: "m" };
    expect(keys(reordered)).toEqual(keys(question));
    expect(keys({ ...question, stop: ["a", "b"] }).exactKey).not.toBe(keys({ ...question, stop: ["b", "a"] }).exactKey);
  });

  test("the semantic prompt: the last message, if it is a user message of text", () => {
    expect(keys(question).prompt).toBe("Why is the sky blue?");
    expect(keys({ model: "m", messages: [{ role: "user", content: [{ type: "text", text: "Part one." }, { type: "text", text: "Part two." }] }] }).prompt).toBe("Part one.\nPart two.");
    expect(keys({ model: "m", messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: "data:" } }] }] }).prompt).toBeUndefined();
    expect(keys({ model: "m", messages: [{ role: "user", content: "Hi" }, { role: "assistant", content: "Hello" }] }).prompt).toBeUndefined();
    expect(keys({ model: "m", messages: [{ role: "tool", content: "42", tool_call_id: "c1" }] }).prompt).toBeUndefined();
  });
});
