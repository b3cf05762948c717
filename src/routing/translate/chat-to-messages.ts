import { given, isRecord, join, list, malformed, MESSAGES_API as API, onlyKnownFields, quote, record, text, toolArguments, untranslatable, type Json } from "./fields";

/**
 * Messages requires max_tokens where chat completions does not: 4096 is the value of Anthropic's
 * own examples and within every current model's output limit.
 */
export const DEFAULT_MAX_TOKENS = 4096;

/** Anthropic's temperature range is 0–1 where OpenAI's is 0–2: rescaling would change the sampling asked for. */
const MAX_TEMPERATURE = 1;

/** The image types Messages accepts in a base64 source. */
const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/**
 * Fields that only tune how OpenAI caches the prompt: they never change the answer, and
 * Anthropic caches by its own markers, so they are dropped.
 */
const CACHE_HINTS = new Set(["prompt_cache_key", "prompt_cache_retention", "prompt_cache_options"]);

/**
 * Fields accepted only at the value that asks for nothing (null counts as absent everywhere):
 * any other value asks for something Messages cannot do.
 */
const DEFAULT_ONLY: Record<string, (value: unknown) => boolean> = {
  n: (value) => value === 1,
  logprobs: (value) => value === false,
  top_logprobs: (value) => value === 0,
  response_format: (value) => isRecord(value) && value.type === "text",
  modalities: (value) => Array.isArray(value) && value.length === 1 && value[0] === "text",
  presence_penalty: (value) => value === 0,
  frequency_penalty: (value) => value === 0,
  logit_bias: (value) => isRecord(value) && Object.keys(value).length === 0,
  // Only meaningful with store: true, which Anthropic has no counterpart for.
  metadata: (value) => isRecord(value) && Object.keys(value).length === 0,
  store: (value) => value === false,
  service_tier: (value) => value === "auto",
  seed: () => false,
  audio: () => false,
  prediction: () => false,
  web_search_options: () => false,
  functions: () => false,
  function_call: () => false,
  reasoning_effort: () => false,
  verbosity: () => false,
  moderation: () => false,
};

/** Fields mapped below. */
const MAPPED = new Set(["model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "stop", "tools", "tool_choice", "parallel_tool_calls", "stream", "stream_options", "user", "safety_identifier"]);

/** A chat-completions request as a Messages request, and the delivery options the client asked for. */
export function chatRequestToMessages(body: Json, model: string): { json: Json; includeUsage: boolean } {
  for (const [key, value] of Object.entries(body)) {
    if (!given(value) || MAPPED.has(key) || CACHE_HINTS.has(key)) continue;
    const accepts = DEFAULT_ONLY[key];
    if (!accepts) untranslatable(key, quote(value), API, "no counterpart");
    if (!accepts(value)) untranslatable(key, quote(value), API);
  }
  const json: Json = { model, ...conversation(list(body.messages, "messages")) };
  // max_completion_tokens replaced max_tokens in chat completions: it wins when both are given.
  json.max_tokens = given(body.max_completion_tokens) ? body.max_completion_tokens : given(body.max_tokens) ? body.max_tokens : DEFAULT_MAX_TOKENS;
  if (given(body.temperature)) {
    if (typeof body.temperature !== "number") malformed("temperature", "a number");
    if (body.temperature > MAX_TEMPERATURE) untranslatable("temperature", String(body.temperature), API, `its temperature goes up to ${MAX_TEMPERATURE}`);
    json.temperature = body.temperature;
  }
  if (given(body.top_p)) json.top_p = body.top_p;
  if (given(body.stop)) json.stop_sequences = typeof body.stop === "string" ? [body.stop] : list(body.stop, "stop");
  if (given(body.tools)) json.tools = list(body.tools, "tools").map((tool, i) => toolDefinition(tool, `tools[${i}]`));
  const choice = toolChoice(body.tool_choice, body.parallel_tool_calls === false && given(body.tools));
  if (choice) json.tool_choice = choice;
  const userId = endUser(body);
  if (userId !== undefined) json.metadata = { user_id: userId };
  if (body.stream === true) json.stream = true;
  // include_obfuscation pads chunks against length side channels; the translated chunks are Sieve's own, so it is moot.
  const options = given(body.stream_options) ? record(body.stream_options, "stream_options") : {};
  onlyKnownFields(options, ["include_usage", "include_obfuscation"], "stream_options", API);
  return { json, includeUsage: body.stream === true && options.include_usage === true };
}

/** `user` and its successor `safety_identifier` both name the end user, as Anthropic's metadata.user_id does. */
function endUser(body: Json): string | undefined {
  const { user, safety_identifier } = body;
  if (given(user) && given(safety_identifier) && user !== safety_identifier) untranslatable("safety_identifier", quote(safety_identifier), API, "metadata.user_id already carries user");
  const id = given(safety_identifier) ? safety_identifier : user;
  return given(id) ? text(id, given(safety_identifier) ? "safety_identifier" : "user") : undefined;
}

type Turn = { role: "user" | "assistant"; content: Json[] };

/**
 * The system and developer messages before the first turn become `system`; the turns become
 * user and assistant turns, tool results joining the user turn that follows a tool call.
 * Consecutive turns of one role are merged: Messages wants them alternating, with every
 * tool_result in the user turn right after the assistant's tool_use.
 */
function conversation(messages: unknown[]): { system?: Json[]; messages: Turn[] } {
  const system: Json[] = [];
  const turns: Turn[] = [];
  const add = (role: Turn["role"], content: Json[]) => {
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  };
  messages.forEach((raw, i) => {
    const path = `messages[${i}]`;
    const message = record(raw, path);
    switch (message.role) {
      case "system":
      case "developer":
        // Messages has one system prompt, read before the conversation: a later one would move.
        if (turns.length > 0) untranslatable(path, `a ${message.role} message after the first turn`, API, "its system prompt comes before the conversation");
        onlyKnownFields(message, ["role", "content"], path, API);
        system.push(...textParts(message.content, join(path, "content")));
        return;
      case "user":
        onlyKnownFields(message, ["role", "content"], path, API);
        return add("user", userContent(message.content, join(path, "content")));
      case "assistant": {
        const content = assistantContent(message, path);
        // An assistant message with no text and no call carries nothing Messages could hold.
        if (content.length > 0) add("assistant", content);
        return;
      }
      case "tool":
        onlyKnownFields(message, ["role", "content", "tool_call_id"], path, API);
        return add("user", [toolResult(message, path)]);
      default:
        untranslatable(join(path, "role"), quote(message.role), API, "legacy function messages have no counterpart");
    }
  });
  return system.length > 0 ? { system, messages: turns } : { messages: turns };
}

/** Text content (string or text parts) as text blocks. */
function textParts(content: unknown, path: string): Json[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return list(content, path).map((raw, j) => {
    const part = record(raw, `${path}[${j}]`);
    if (part.type !== "text") untranslatable(`${path}[${j}].type`, quote(part.type), API, "only text parts are allowed here");
    return textBlock(part, `${path}[${j}]`);
  });
}

/** `prompt_cache_breakpoint` is an OpenAI caching hint: it never changes the answer, so it is dropped. */
function textBlock(part: Json, path: string): Json {
  onlyKnownFields(part, ["type", "text", "prompt_cache_breakpoint"], path, API);
  return { type: "text", text: text(part.text, join(path, "text")) };
}

function userContent(content: unknown, path: string): Json[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return list(content, path).map((raw, j) => {
    const part = record(raw, `${path}[${j}]`);
    if (part.type === "text") return textBlock(part, `${path}[${j}]`);
    if (part.type === "image_url") return imageBlock(part, `${path}[${j}]`);
    return untranslatable(`${path}[${j}].type`, quote(part.type), API, "text and images only");
  });
}

/**
 * An image part as an image block: a data: URL becomes a base64 source, an http(s) URL a url
 * source. `detail` only picks the resolution OpenAI reads the image at; Anthropic reads every
 * image at its own, so the hint is dropped.
 */
function imageBlock(part: Json, path: string): Json {
  onlyKnownFields(part, ["type", "image_url", "prompt_cache_breakpoint"], path, API);
  const image = record(part.image_url, join(path, "image_url"));
  onlyKnownFields(image, ["url", "detail"], join(path, "image_url"), API);
  const urlPath = join(path, "image_url.url");
  const url = text(image.url, urlPath);
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) {
    const mediaType = data[1]!.toLowerCase();
    if (!IMAGE_TYPES.has(mediaType)) untranslatable(urlPath, `an image of type ${mediaType}`, API, `it reads ${[...IMAGE_TYPES].join(", ")}`);
    return { type: "image", source: { type: "base64", media_type: mediaType, data: data[2] } };
  }
  if (/^https?:\/\//i.test(url)) return { type: "image", source: { type: "url", url } };
  return untranslatable(urlPath, quote(url), API, "a data: URL or an http(s) URL");
}

/**
 * An assistant message as text and tool_use blocks. Empty text is left out: SDKs send
 * `content: ""` beside tool calls, and Messages refuses empty text blocks. `annotations` are
 * citations OpenAI attached to an earlier answer; they are not part of what the model reads.
 */
function assistantContent(message: Json, path: string): Json[] {
  onlyKnownFields(message, ["role", "content", "tool_calls", "annotations"], path, API);
  const contentPath = join(path, "content");
  const texts = !given(message.content)
    ? []
    : typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : list(message.content, contentPath).map((raw, j) => {
          const part = record(raw, `${contentPath}[${j}]`);
          if (part.type !== "text") untranslatable(`${contentPath}[${j}].type`, quote(part.type), API, "only text parts are carried");
          return textBlock(part, `${contentPath}[${j}]`);
        });
  const calls = given(message.tool_calls) ? list(message.tool_calls, join(path, "tool_calls")).map((call, j) => toolUse(call, `${path}.tool_calls[${j}]`)) : [];
  return [...texts.filter((block) => block.text !== ""), ...calls];
}

function toolUse(raw: unknown, path: string): Json {
  const call = record(raw, path);
  if (call.type !== "function") untranslatable(join(path, "type"), quote(call.type), API, "only function tools");
  onlyKnownFields(call, ["id", "type", "function"], path, API);
  const fn = record(call.function, join(path, "function"));
  onlyKnownFields(fn, ["name", "arguments"], join(path, "function"), API);
  return { type: "tool_use", id: text(call.id, join(path, "id")), name: text(fn.name, join(path, "function.name")), input: toolInput(fn.arguments, join(path, "function.arguments")) };
}

/** Arguments are JSON text in chat completions and a JSON object in Messages. */
function toolInput(args: unknown, path: string): Json {
  return toolArguments(text(args, path)) ?? untranslatable(path, quote(args), API, "tool input must be a JSON object");
}

function toolResult(message: Json, path: string): Json {
  const content = typeof message.content === "string" ? message.content : textParts(message.content, join(path, "content"));
  return { type: "tool_result", tool_use_id: text(message.tool_call_id, join(path, "tool_call_id")), content };
}

/** `{type: "function", function: {name, description, parameters, strict}}` → `{name, description, input_schema, strict}`. */
function toolDefinition(raw: unknown, path: string): Json {
  const tool = record(raw, path);
  if (tool.type !== "function") untranslatable(join(path, "type"), quote(tool.type), API, "only function tools");
  onlyKnownFields(tool, ["type", "function"], path, API);
  const fn = record(tool.function, join(path, "function"));
  onlyKnownFields(fn, ["name", "description", "parameters", "strict"], join(path, "function"), API);
  // A function without parameters takes none: Messages needs that said as an empty object schema.
  const definition: Json = { name: text(fn.name, join(path, "function.name")), input_schema: given(fn.parameters) ? record(fn.parameters, join(path, "function.parameters")) : { type: "object", properties: {} } };
  if (given(fn.description)) definition.description = text(fn.description, join(path, "function.description"));
  if (given(fn.strict)) definition.strict = fn.strict;
  return definition;
}

/** auto → auto, none → none, required → any, a named function → tool; parallel_tool_calls: false rides on it. */
function toolChoice(choice: unknown, oneCallAtATime: boolean): Json | undefined {
  let mapped: Json | undefined;
  if (!given(choice)) mapped = oneCallAtATime ? { type: "auto" } : undefined;
  else if (choice === "auto") mapped = { type: "auto" };
  else if (choice === "none") return { type: "none" };
  else if (choice === "required") mapped = { type: "any" };
  else if (isRecord(choice) && choice.type === "function") {
    onlyKnownFields(choice, ["type", "function"], "tool_choice", API);
    const fn = record(choice.function, "tool_choice.function");
    onlyKnownFields(fn, ["name"], "tool_choice.function", API);
    mapped = { type: "tool", name: text(fn.name, "tool_choice.function.name") };
  } else untranslatable("tool_choice", quote(choice), API, "auto, none, required or one function");
  return mapped && oneCallAtATime ? { ...mapped, disable_parallel_tool_use: true } : mapped;
}
