import { isRecord, type Json } from "./fields";
import { finishReason } from "./stop-reasons";
import { chatUsage } from "./usage";

/**
 * A Messages answer as a chat.completion: text blocks joined into the content (null when the
 * answer is only tool calls), tool_use blocks as tool_calls. Thinking blocks are left out (chat
 * completions has no place for them); other block types need server tools, never sent across.
 */
export function messagesAnswerToChat(json: unknown, requestedModel: string): Json | undefined {
  if (!isRecord(json) || json.type !== "message" || !Array.isArray(json.content)) return undefined;
  const texts: string[] = [];
  const calls: Json[] = [];
  for (const block of json.content) {
    if (!isRecord(block)) return undefined;
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    else if (block.type === "tool_use") calls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
  }
  const message: Json = { role: "assistant", content: texts.length > 0 || calls.length === 0 ? texts.join("") : null, refusal: null };
  if (calls.length > 0) message.tool_calls = calls;
  return {
    id: json.id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: requestedModel,
    choices: [{ index: 0, message, finish_reason: finishReason(json.stop_reason), logprobs: null }],
    usage: chatUsage(json.usage),
  };
}
