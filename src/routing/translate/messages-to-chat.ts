import { CHAT_API as API, given, isRecord, join, list, onlyKnownFields, quote, record, text, untranslatable, type Json } from "./fields";

/**
 * Fields accepted only at the value that asks for nothing (null counts as absent): any other
 * value asks for something chat completions cannot do.
 */
const DEFAULT_ONLY: Record<string, (value: unknown) => boolean> = {
  thinking: (value) => isRecord(value) && value.type === "disabled",
  service_tier: (value) => value === "auto",
  speed: (value) => value === "standard",
  top_k: () => false,
  container: () => false,
  mcp_servers: () => false,
  output_config: () => false,
  inference_geo: () => false,
  diagnostics: () => false,
  context_management: () => false,
};

/**
 * Fields mapped below. The top-level `cache_control` (like every block's) only marks what
 * Anthropic should cache: it never changes the answer, and OpenAI caches prefixes by itself, so
 * it is dropped.
 */
const MAPPED = new Set(["model", "messages", "system", "max_tokens", "stop_sequences", "temperature", "top_p", "tools", "tool_choice", "metadata", "stream", "cache_control"]);

/** A Messages request as a chat-completions request. */
export function messagesRequestToChat(body: Json, model: string): Json {
  for (const [key, value] of Object.entries(body)) {
    if (!given(value) || MAPPED.has(key)) continue;
    const accepts = DEFAULT_ONLY[key];
    if (!accepts) untranslatable(key, quote(value), API, "no counterpart");
    if (!accepts(value)) untranslatable(key, quote(value), API);
  }
  const json: Json = { model, messages: [...systemMessages(body.system), ...list(body.messages, "messages").flatMap((message, i) => chatMessages(message, `messages[${i}]`))] };
  if (given(body.max_tokens)) json.max_tokens = body.max_tokens;
  if (given(body.stop_sequences)) json.stop = list(body.stop_sequences, "stop_sequences");
  if (given(body.temperature)) json.temperature = body.temperature;
  if (given(body.top_p)) json.top_p = body.top_p;
  const tools = given(body.tools) ? list(body.tools, "tools").map((tool, i) => functionTool(tool, `tools[${i}]`)) : [];
  if (tools.length > 0) json.tools = tools;
  if (given(body.tool_choice)) Object.assign(json, toolChoice(record(body.tool_choice, "tool_choice"), tools.length > 0));
  if (given(body.metadata)) {
    const metadata = record(body.metadata, "metadata");
    onlyKnownFields(metadata, ["user_id"], "metadata", API);
    if (given(metadata.user_id)) json.user = text(metadata.user_id, "metadata.user_id");
  }
  // message_delta carries the output tokens, which a chat stream sends only when asked to.
  if (body.stream === true) Object.assign(json, { stream: true, stream_options: { include_usage: true } });
  return json;
}

function systemMessages(system: unknown): Json[] {
  if (!given(system)) return [];
  if (typeof system === "string") return [{ role: "system", content: system }];
  return [{ role: "system", content: list(system, "system").map((block, i) => textPart(record(block, `system[${i}]`), `system[${i}]`)) }];
}

/** A text block as a text part; citations point into documents chat completions cannot be given. */
function textPart(block: Json, path: string): Json {
  onlyKnownFields(block, ["type", "text", "cache_control"], path, API);
  return { type: "text", text: text(block.text, join(path, "text")) };
}

/**
 * One Messages turn as chat messages. A user turn's tool_result blocks become `tool` messages
 * (chat completions wants them right after the assistant's call), its other blocks user messages.
 */
function chatMessages(raw: unknown, path: string): Json[] {
  const message = record(raw, path);
  onlyKnownFields(message, ["role", "content"], path, API);
  if (message.role === "assistant") return [assistantMessage(message.content, join(path, "content"))];
  if (message.role !== "user") untranslatable(join(path, "role"), quote(message.role), API, "user and assistant turns only");
  if (typeof message.content === "string") return [{ role: "user", content: message.content }];
  const out: Json[] = [];
  let parts: Json[] = [];
  const flush = () => {
    if (parts.length > 0) out.push({ role: "user", content: parts });
    parts = [];
  };
  list(message.content, join(path, "content")).forEach((raw, j) => {
    const blockPath = `${path}.content[${j}]`;
    const block = record(raw, blockPath);
    if (block.type === "tool_result") {
      flush();
      out.push(toolMessage(block, blockPath));
    } else if (block.type === "text") parts.push(textPart(block, blockPath));
    else if (block.type === "image") parts.push(imagePart(block, blockPath));
    else untranslatable(join(blockPath, "type"), quote(block.type), API, "text, image and tool_result blocks only");
  });
  flush();
  return out;
}

/** base64 → a data: URL, url → the URL; files uploaded to Anthropic cannot be read by another provider. */
function imagePart(block: Json, path: string): Json {
  onlyKnownFields(block, ["type", "source", "cache_control"], path, API);
  const sourcePath = join(path, "source");
  const source = record(block.source, sourcePath);
  if (source.type === "base64") {
    onlyKnownFields(source, ["type", "media_type", "data"], sourcePath, API);
    return { type: "image_url", image_url: { url: `data:${text(source.media_type, join(sourcePath, "media_type"))};base64,${text(source.data, join(sourcePath, "data"))}` } };
  }
  if (source.type === "url") {
    onlyKnownFields(source, ["type", "url"], sourcePath, API);
    return { type: "image_url", image_url: { url: text(source.url, join(sourcePath, "url")) } };
  }
  return untranslatable(join(sourcePath, "type"), quote(source.type), API, "base64 and url images only");
}

/**
 * A tool_result as a tool message. Tool messages take text only, and have no way to say the
 * call failed: `is_error: true` is refused rather than passed off as a success.
 */
function toolMessage(block: Json, path: string): Json {
  onlyKnownFields(block, ["type", "tool_use_id", "content", "is_error", "cache_control"], path, API);
  if (block.is_error === true) untranslatable(join(path, "is_error"), "true", API, "a tool message cannot mark a failed call");
  const contentPath = join(path, "content");
  const content = !given(block.content)
    ? ""
    : typeof block.content === "string"
      ? block.content
      : list(block.content, contentPath).map((raw, k) => {
          const inner = record(raw, `${contentPath}[${k}]`);
          if (inner.type !== "text") untranslatable(`${contentPath}[${k}].type`, quote(inner.type), API, "tool messages hold text only");
          return textPart(inner, `${contentPath}[${k}]`);
        });
  return { role: "tool", tool_call_id: text(block.tool_use_id, join(path, "tool_use_id")), content };
}

/**
 * An assistant turn: its text blocks joined (they are pieces of one answer) and its tool_use
 * blocks as tool_calls. Thinking blocks are left out: Anthropic itself removes earlier turns'
 * thinking from what the model reads, and `thinking` cannot be enabled across.
 */
function assistantMessage(content: unknown, path: string): Json {
  if (typeof content === "string") return { role: "assistant", content };
  const texts: string[] = [];
  const calls: Json[] = [];
  list(content, path).forEach((raw, j) => {
    const blockPath = `${path}[${j}]`;
    const block = record(raw, blockPath);
    if (block.type === "text") texts.push(textPart(block, blockPath).text as string);
    else if (block.type === "tool_use") {
      onlyKnownFields(block, ["type", "id", "name", "input", "cache_control"], blockPath, API);
      calls.push({ id: text(block.id, join(blockPath, "id")), type: "function", function: { name: text(block.name, join(blockPath, "name")), arguments: JSON.stringify(block.input ?? {}) } });
    } else if (block.type !== "thinking" && block.type !== "redacted_thinking") untranslatable(join(blockPath, "type"), quote(block.type), API, "text and tool_use blocks only");
  });
  const message: Json = { role: "assistant", content: texts.length > 0 || calls.length === 0 ? texts.join("") : null };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

/** `{name, description, input_schema, strict}` → a function tool; server and Anthropic-defined tools run only at Anthropic. */
function functionTool(raw: unknown, path: string): Json {
  const tool = record(raw, path);
  if (given(tool.type) && tool.type !== "custom") untranslatable(join(path, "type"), quote(tool.type), API, "only custom tools run outside Anthropic");
  onlyKnownFields(tool, ["type", "name", "description", "input_schema", "strict", "cache_control"], path, API);
  const fn: Json = { name: text(tool.name, join(path, "name")), parameters: record(tool.input_schema, join(path, "input_schema")) };
  if (given(tool.description)) fn.description = text(tool.description, join(path, "description"));
  if (given(tool.strict)) fn.strict = tool.strict;
  return { type: "function", function: fn };
}

/** auto → auto, any → required, tool → a named function, none → none; disable_parallel_tool_use → parallel_tool_calls: false. */
function toolChoice(choice: Json, hasTools: boolean): Json {
  const named = choice.type === "tool";
  onlyKnownFields(choice, named ? ["type", "name", "disable_parallel_tool_use"] : ["type", "disable_parallel_tool_use"], "tool_choice", API);
  const mapped: Json = {};
  if (choice.type === "auto") mapped.tool_choice = "auto";
  else if (choice.type === "any") mapped.tool_choice = "required";
  else if (choice.type === "none") mapped.tool_choice = "none";
  else if (named) mapped.tool_choice = { type: "function", function: { name: text(choice.name, "tool_choice.name") } };
  else untranslatable("tool_choice.type", quote(choice.type), API, "auto, any, tool or none");
  // OpenAI refuses parallel_tool_calls without tools; without tools there is no call to serialise.
  if (choice.disable_parallel_tool_use === true && hasTools) mapped.parallel_tool_calls = false;
  return mapped;
}
