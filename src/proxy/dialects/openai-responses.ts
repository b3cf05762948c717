import { responsesBody, type ResponsesBody, type ResponsesInputItem } from "../model";
import { formatSseEvent } from "../sse";
import { conversationSubject } from "./cache-subject";
import type { Dialect, ScannedText } from "./dialect";
import { openaiChat } from "./openai-chat";
import { ERROR_CODES, openaiErrorBody } from "./errors";
import { replayPieces } from "./replay-pieces";
import { responsesUsage, ResponsesTranscript } from "./responses-transcript";

const SYSTEM_ROLES = new Set(["system", "developer"]);
/** Content parts a semantic cache lookup may match: what the user wrote, in either spelling. */
const TEXT_PARTS = new Set(["input_text", "text"]);
/** Items that carry what a tool returned: indirect injections arrive there. */
const TOOL_OUTPUTS = new Set(["function_call_output", "custom_tool_call_output", "computer_call_output", "local_shell_call_output", "mcp_call_output"]);
/** Tools Sieve's client runs itself: their answers are in the request. Any other tool reads the provider's or the world's state. */
const CLIENT_TOOLS = new Set(["function", "custom"]);

/**
 * OpenAI Responses API, POST /v1/responses.
 *
 * Cache rule: a request is cached only when the body holds everything the answer depends on.
 * Never cached: `previous_response_id` or `conversation` (the provider's stored history),
 * `prompt` (a stored prompt template), `background` (answered later by id), `item_reference`
 * input items, and hosted tools (web_search, file_search, code_interpreter, mcp, …: they read
 * live or stored data). `store` only decides whether the provider keeps the response: a
 * replayed answer is the stored original, with its id.
 */
export const openaiResponses: Dialect = {
  name: "openai_responses",
  api: "POST /v1/responses",
  provider: "openai",
  upstreamPath: "/responses",
  forwardedHeaders: openaiChat.forwardedHeaders,
  schema: responsesBody,

  read(raw) {
    const body = raw as ResponsesBody;
    const { model, input, ...params } = body;
    const items: ResponsesInputItem[] = typeof input === "string" ? [{ role: "user", content: input }] : (input ?? []);
    const texts: ScannedText[] = [];
    if (body.instructions?.trim()) texts.push({ system: true, text: body.instructions, channel: "user" });
    for (const item of items) {
      if (TOOL_OUTPUTS.has(item.type ?? "")) {
        const text = itemText(item);
        if (text !== undefined) texts.push({ system: false, text, channel: "data" });
        continue;
      }
      // A message's own words are one text; the text of a file it attaches is data of its own.
      const parts = Array.isArray(item.content) ? (item.content as { type?: unknown; text?: unknown; file_data?: unknown }[]) : [];
      const files = parts.filter((part) => part?.type === "input_file");
      const text = files.length > 0 ? itemText({ ...item, content: parts.filter((part) => part?.type !== "input_file") } as ResponsesInputItem) : itemText(item);
      if (text !== undefined) texts.push({ system: SYSTEM_ROLES.has(item.role ?? ""), text, channel: "user" });
      for (const file of files) {
        const data = inputFileText(file);
        if (data.trim()) texts.push({ system: false, text: data, channel: "data" });
      }
    }
    return {
      api: openaiResponses.api,
      model,
      stream: body.stream === true,
      texts,
      cache: dependsOnProviderState(body, items) || items.length === 0 ? undefined : conversationSubject(items, params, promptText),
      conversation: { instructions: body.instructions ?? null, input: input ?? null },
    };
  },

  answer(json) {
    if (!json || typeof json !== "object") return undefined;
    const response = json as { object?: unknown; status?: unknown; output?: unknown; usage?: unknown };
    if (response.object !== "response" || !Array.isArray(response.output)) return undefined;
    // An incomplete or failed response is still checked by the firewall, never cached.
    return { text: outputText(response.output), usage: responsesUsage(response.usage), complete: response.status === "completed" };
  },

  transcript: () => new ResponsesTranscript(),
  replayStream: responseToSse,
  errorBody: openaiErrorBody,
  // The Responses stream's own error event: {type: "error", code, message, param}; the SDK raises it as an APIError.
  streamError: (kind, message, requestId, reason) =>
    formatSseEvent({ type: "error", code: ERROR_CODES[kind], message, param: null, request_id: requestId, ...(kind === "blocked" ? { reason } : {}) }, "error"),
};

/**
 * Text a user or tool put in one input item; undefined for items whose text is not scanned
 * (assistant turns, reasoning, calls). An item with a user, system or developer role is read
 * whatever its type says: a lenient provider may take `{type: "Message", role: "user"}` as a turn.
 */
function itemText(item: ResponsesInputItem): string | undefined {
  if (TOOL_OUTPUTS.has(item.type ?? "")) {
    const output = (item as { output?: unknown }).output;
    return typeof output === "string" ? output : Array.isArray(output) ? partsText(output) : undefined;
  }
  if (!item.role || item.role === "assistant") return undefined;
  return typeof item.content === "string" ? item.content : Array.isArray(item.content) ? partsText(item.content) : undefined;
}

/**
 * The text of an `input_file` part: its `text`, or its `file_data` when that is a data URL (or
 * base64) of a text type; PDFs and other binary files are the provider's to read (not scanned).
 */
function inputFileText(part: { text?: unknown; file_data?: unknown; filename?: unknown }): string {
  if (typeof part.text === "string") return part.text;
  if (typeof part.file_data !== "string") return "";
  const match = /^data:(text\/[\w.+-]+|application\/(?:json|xml))(?:;[^,]*)?;base64,(.*)$/s.exec(part.file_data);
  return match ? Buffer.from(match[2]!, "base64").toString("utf8") : "";
}

/** The text of every part that carries one, whatever its type. */
function partsText(parts: unknown[]): string {
  return parts
    .filter((part): part is { text: string } => typeof (part as { text?: unknown })?.text === "string")
    .map((part) => part.text)
    .join("\n");
}

function dependsOnProviderState(body: ResponsesBody, items: ResponsesInputItem[]): boolean {
  if (body.previous_response_id || body.conversation || body.prompt || body.background) return true;
  if (items.some((item) => item.type === "item_reference")) return true;
  const tools = Array.isArray(body.tools) ? (body.tools as { type?: unknown }[]) : [];
  return tools.some((tool) => !CLIENT_TOOLS.has(String(tool?.type)));
}

/** The last item's text when it is a user message of text only; otherwise exact hits only. */
function promptText(last: ResponsesInputItem): string | undefined {
  const content = (last.type ?? "message") === "message" && last.role === "user" ? last.content : undefined;
  const textOnly = typeof content === "string" || (Array.isArray(content) && content.length > 0 && content.every((part) => TEXT_PARTS.has(part.type)));
  const text = textOnly ? itemText(last) : undefined;
  return text?.trim() ? text : undefined;
}

function outputText(output: unknown[]): string {
  return output
    .flatMap((item) => {
      const message = item as { type?: string; content?: { type?: string; text?: unknown }[] };
      return message.type === "message" && Array.isArray(message.content) ? message.content : [];
    })
    .filter((part) => part.type === "output_text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("");
}

type OutputItem = { id?: string; type?: string; content?: { type?: string; text?: string }[]; arguments?: string; [key: string]: unknown };

/**
 * A stored response as the Responses event stream a provider sends: created, in_progress, then
 * per output item added → (content part, text deltas) → done, and response.completed with the
 * whole response. Official SDKs rebuild exactly the stored response from it.
 */
export function responseToSse(response: Record<string, unknown>): string {
  let sequence = 0;
  let out = "";
  const emit = (type: string, fields: Record<string, unknown>) => (out += formatSseEvent({ type, sequence_number: sequence++, ...fields }, type));
  const inProgress = { ...response, status: "in_progress", output: [], usage: null };
  emit("response.created", { response: inProgress });
  emit("response.in_progress", { response: inProgress });
  const output = (Array.isArray(response.output) ? response.output : []) as OutputItem[];
  output.forEach((item, outputIndex) => {
    const at = { item_id: item.id, output_index: outputIndex };
    if (item.type === "message" && Array.isArray(item.content)) {
      emit("response.output_item.added", { output_index: outputIndex, item: { ...item, status: "in_progress", content: [] } });
      item.content.forEach((part, contentIndex) => {
        const text = part.type === "output_text" ? (part.text ?? "") : undefined;
        emit("response.content_part.added", { ...at, content_index: contentIndex, part: text === undefined ? part : { ...part, text: "" } });
        if (text !== undefined) {
          for (const delta of replayPieces(text)) emit("response.output_text.delta", { ...at, content_index: contentIndex, delta, logprobs: [] });
          emit("response.output_text.done", { ...at, content_index: contentIndex, text, logprobs: [] });
        }
        emit("response.content_part.done", { ...at, content_index: contentIndex, part });
      });
    } else if (item.type === "function_call") {
      emit("response.output_item.added", { output_index: outputIndex, item: { ...item, status: "in_progress", arguments: "" } });
      emit("response.function_call_arguments.delta", { ...at, delta: item.arguments ?? "" });
      emit("response.function_call_arguments.done", { ...at, arguments: item.arguments ?? "" });
    } else {
      emit("response.output_item.added", { output_index: outputIndex, item });
    }
    emit("response.output_item.done", { output_index: outputIndex, item });
  });
  emit("response.completed", { response });
  return out;
}
