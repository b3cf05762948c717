import { isRecord, toolArguments, type Json } from "./fields";
import { stopReason } from "./stop-reasons";
import { messagesUsage } from "./usage";

/**
 * A chat.completion as a Messages answer: the content (or refusal) as a text block, tool_calls
 * as tool_use blocks. Undefined when it is not a completion, or when a call's arguments are not
 * a JSON object (the model wrote broken JSON): a tool_use input must be one, and the router then
 * treats the answer as malformed rather than hand the client an invented input.
 */
export function chatAnswerToMessages(json: unknown, requestedModel: string): Json | undefined {
  if (!isRecord(json) || !Array.isArray(json.choices)) return undefined;
  const choice = json.choices[0];
  if (!isRecord(choice) || !isRecord(choice.message)) return undefined;
  const { message } = choice;
  const content: Json[] = [];
  const refused = typeof message.refusal === "string" && message.refusal !== "";
  const said = refused ? message.refusal : message.content;
  if (typeof said === "string" && said !== "") content.push({ type: "text", text: said });
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    if (!isRecord(call) || !isRecord(call.function)) return undefined;
    const input = toolArguments(call.function.arguments);
    if (!input) return undefined;
    content.push({ type: "tool_use", id: call.id, name: call.function.name, input });
  }
  return {
    id: json.id,
    type: "message",
    role: "assistant",
    model: requestedModel,
    content,
    stop_reason: refused ? "refusal" : stopReason(choice.finish_reason),
    stop_sequence: null,
    usage: messagesUsage(json.usage),
  };
}
