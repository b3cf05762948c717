/**
 * A local AI provider for tests: the only fake in the suite. It speaks three dialects: OpenAI
 * chat completions (POST /v1/chat/completions), OpenAI's Responses API (POST /v1/responses) and
 * Anthropic's Messages API (POST /v1/messages), plus a few other provider paths for pass-through
 * tests. The request's `model` picks its behaviour, so concurrent tests do not interfere:
 *   any model          → an answer echoing the last user message ("echo: …")
 *   "stall"            → never answers (until the caller aborts; counted in aborted())
 *   "ttfb:<ms>"        → waits <ms> before answering (headers and body), like a provider's time to first byte
 *                        (a caller that aborts meanwhile is counted in aborted())
 *   "error-<status>"   → that status with the dialect's error body
 *   "flaky-<status>-<n>[-after-<ms>]"
 *                      → the first n requests naming this model get that status (with
 *                        retry-after-ms: <ms> and Retry-After in seconds when -after- is given),
 *                        later ones the echo
 *   "malformed"        → (non-stream) status 200 with a body that breaks off mid-JSON
 *   "huge:<bytes>"     → that many bytes of answer sent in 64 KiB pieces as they are read
 *                        (never built whole: for memory bounds), as one JSON body or as events
 *   "endless-event"    → (stream) one event whose data line never ends (up to 1 GiB, until the
 *                        client goes away)
 *   "tool:<name>"      → (chat, messages) a call of tool <name> with {"city": <last user text>}
 *                        instead of text, whole or streamed (the arguments in two pieces, cut after 5
 *                        characters, or after <n> with "tool:<name>:<n>")
 *   "pieces:<n>"       → (stream) the text deltas are <n> characters each instead of one word
 *   with stream: true  → the dialect's events, one word per text delta, then its end event
 *   "drop"             → (stream) two deltas, then the connection breaks
 *   "no-done"          → (stream) ends cleanly without the end event ([DONE], response.completed, message_stop)
 *   "gated"            → (stream) first delta, then waits until `openGate()` is called
 *   "slow"             → (stream) 30 ms between deltas
 *   "slow-body"        → (non-stream) the headers at once, the JSON body SLOW_BODY_MS later
 *   "say:<text>"       → answers <text> instead of the echo
 *   "leak"             → answers with the request's system prompt, word for word
 *   "large:<bytes>"    → answers that many bytes of ordinary sentences
 *   "echo-long"        → ~600 characters of weather report about the prompt: a typical answer
 *                        length, and every part of it differs between prompts (nothing memoised)
 *   "usage-detail"     → usage of 50 input tokens (20 of them cached), 30 output (10 of them reasoning),
 *                        in each dialect's own fields (Anthropic's input_tokens excludes the cached 20)
 *   "no-usage"         → an answer without any usage field (whole or streamed)
 * Chat streams follow OpenAI: the final usage chunk (`choices: []`), and `"usage": null` on every
 * other chunk, only when the request sets `stream_options.include_usage`.
 * Other paths: GET /v1/models (OpenAI's list, or Anthropic's when anthropic-version is sent),
 * POST /v1/embeddings (1536 dimensions), POST /v1/files (multipart; reports the bytes received),
 * GET /v1/files/<id>/content (binary), GET /v1/responses/<id>, POST /v1/messages/count_tokens.
 */
export type ReceivedRequest = { body: string; headers: Record<string, string>; path: string; method: string };

export type FakeUpstream = {
  /** OpenAI-compatible base URL (…/v1). */
  url: string;
  /** Anthropic base URL (no version segment, like https://api.anthropic.com). */
  anthropicUrl: string;
  received: ReceivedRequest[];
  /** Paths of requests as they arrive, before their body is read (received lists them once read). */
  arrivals: string[];
  /** Releases the "gated" streams waiting now. */
  openGate: () => void;
  /** Number of provider streams aborted by their client so far. */
  aborted: () => number;
  stop: () => Promise<void>;
};

const encoder = new TextEncoder();
/** How long the "slow-body" answer's body follows its headers. */
export const SLOW_BODY_MS = 300;

type Dialect = "chat" | "responses" | "messages";
type Conversation = { model: string; stream: boolean; lastUser: string; system: string };
type Usage = { input: number; output: number; cached?: number; reasoning?: number; none?: boolean };

/** How one dialect writes an answer: whole, as stream events, or as an error. */
type Wire = {
  json(id: string, model: string, answer: string, usage: Usage): object;
  start(id: string, model: string, usage: Usage): string[];
  delta(id: string, model: string, text: string): string;
  end(id: string, model: string, answer: string, usage: Usage): string[];
  /** The event that ends a complete stream. */
  terminal(id: string, model: string, answer: string, usage: Usage): string;
  error(status: number, message: string): object;
};

const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
const CREATED = 1_700_000_000;

const chatWire: Wire = {
  json: (id, model, answer, usage) => ({
    id,
    object: "chat.completion",
    created: CREATED,
    model,
    choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop", logprobs: null }],
    ...(usage.none ? {} : { usage: chatUsage(usage) }),
  }),
  start: (id, model) => [chatChunk(id, model, { role: "assistant", content: "" })],
  delta: (id, model, text) => chatChunk(id, model, { content: text }),
  end: (id, model, _answer, usage) => [
    chatChunk(id, model, {}, "stop"),
    ...(usage.none ? [] : [sse({ id, object: "chat.completion.chunk", created: CREATED, model, choices: [], usage: chatUsage(usage) })]),
  ],
  terminal: () => sse("[DONE]"),
  error: (status, message) => ({ error: { message: `${message} ${status}`, type: "fake_error", code: "fake" } }),
};

function chatUsage(usage: Usage) {
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
  };
}

/**
 * A chat stream event as OpenAI sends it for this request: without `stream_options.include_usage`
 * the usage chunk (empty choices) is not sent; with it every other chunk carries `"usage":null`.
 */
function chatEventFor(event: string, includeUsage: boolean): string {
  if (!event.startsWith("data: {")) return event;
  if (event.includes('"choices":[]') && event.includes('"usage":{')) return includeUsage ? event : "";
  return includeUsage ? event.replace(/}\n\n$/, ',"usage":null}\n\n') : event;
}

function chatChunk(id: string, model: string, delta: object, finish: string | null = null): string {
  return sse({ id, object: "chat.completion.chunk", created: CREATED, model, choices: [{ index: 0, delta, finish_reason: finish }] });
}

let sequence = 0;
const responseEvent = (type: string, fields: object) => sse({ type, sequence_number: sequence++, ...fields }, type);
const messageItem = (id: string, text: string, status: string) => ({
  id: `msg_${id}`,
  type: "message",
  status,
  role: "assistant",
  content: status === "in_progress" ? [] : [{ type: "output_text", text, annotations: [] }],
});
const responseObject = (id: string, model: string, answer: string, usage: Usage | null, status = "completed") => ({
  id,
  object: "response",
  created_at: CREATED,
  status,
  model,
  output: status === "completed" ? [messageItem(id, answer, "completed")] : [],
  usage: usage && !usage.none ? { input_tokens: usage.input, input_tokens_details: { cached_tokens: usage.cached ?? 0 }, output_tokens: usage.output, output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 }, total_tokens: usage.input + usage.output } : null,
});

const responsesWire: Wire = {
  json: (id, model, answer, usage) => responseObject(id, model, answer, usage),
  start: (id, model) => [
    responseEvent("response.created", { response: responseObject(id, model, "", null, "in_progress") }),
    responseEvent("response.in_progress", { response: responseObject(id, model, "", null, "in_progress") }),
    responseEvent("response.output_item.added", { output_index: 0, item: messageItem(id, "", "in_progress") }),
    responseEvent("response.content_part.added", { item_id: `msg_${id}`, output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }),
  ],
  delta: (id, _model, text) => responseEvent("response.output_text.delta", { item_id: `msg_${id}`, output_index: 0, content_index: 0, delta: text, logprobs: [] }),
  end: (id, _model, answer) => [
    responseEvent("response.output_text.done", { item_id: `msg_${id}`, output_index: 0, content_index: 0, text: answer, logprobs: [] }),
    responseEvent("response.content_part.done", { item_id: `msg_${id}`, output_index: 0, content_index: 0, part: { type: "output_text", text: answer, annotations: [] } }),
    responseEvent("response.output_item.done", { output_index: 0, item: messageItem(id, answer, "completed") }),
  ],
  terminal: (id, model, answer, usage) => responseEvent("response.completed", { response: responseObject(id, model, answer, usage) }),
  error: (status, message) => ({ error: { message: `${message} ${status}`, type: "fake_error", param: null, code: "fake" } }),
};

/** Anthropic counts cache reads apart: its input_tokens are the uncached ones. */
const messagesUsage = (usage: Usage) => ({ input_tokens: usage.input - (usage.cached ?? 0), cache_read_input_tokens: usage.cached ?? 0, cache_creation_input_tokens: 0, output_tokens: usage.output });

const anthropicEvent = (type: string, fields: object) => sse({ type, ...fields }, type);
const messagesWire: Wire = {
  json: (id, model, answer, usage) => ({
    id,
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text: answer }],
    stop_reason: "end_turn",
    stop_sequence: null,
    ...(usage.none ? {} : { usage: messagesUsage(usage) }),
  }),
  start: (id, model, usage) => [
    anthropicEvent("message_start", { message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, ...(usage.none ? {} : { usage: { ...messagesUsage(usage), output_tokens: 1 } }) } }),
    anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    anthropicEvent("ping", {}),
  ],
  delta: (_id, _model, text) => anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text } }),
  end: (_id, _model, _answer, usage) => [
    anthropicEvent("content_block_stop", { index: 0 }),
    anthropicEvent("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, ...(usage.none ? {} : { usage: { output_tokens: usage.output } }) }),
  ],
  terminal: () => anthropicEvent("message_stop", {}),
  error: (status, message) => ({ type: "error", error: { type: status === 529 ? "overloaded_error" : "api_error", message: `${message} ${status}` } }),
};

/** How chat completions and Messages write a tool call, whole and as stream events. */
type ToolWire = { json(id: string, model: string, name: string, args: string): object; stream(id: string, model: string, name: string, args: string, cut: number): string[] };

const chatTools: ToolWire = {
  json: (id, model, name, args) => ({
    id,
    object: "chat.completion",
    created: CREATED,
    model,
    choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [{ id: "call_fake_1", type: "function", function: { name, arguments: args } }] }, finish_reason: "tool_calls", logprobs: null }],
    usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
  }),
  stream: (id, model, name, args, cut) => [
    chatChunk(id, model, { role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_fake_1", type: "function", function: { name, arguments: "" } }] }),
    chatChunk(id, model, { tool_calls: [{ index: 0, function: { arguments: args.slice(0, cut) } }] }),
    chatChunk(id, model, { tool_calls: [{ index: 0, function: { arguments: args.slice(cut) } }] }),
    chatChunk(id, model, {}, "tool_calls"),
    sse({ id, object: "chat.completion.chunk", created: CREATED, model, choices: [], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } }),
    sse("[DONE]"),
  ],
};

const messagesTools: ToolWire = {
  json: (id, model, name, args) => ({
    id,
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "tool_use", id: "toolu_fake_1", name, input: JSON.parse(args) }],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 7 },
  }),
  stream: (id, model, name, args, cut) => [
    anthropicEvent("message_start", { message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } }),
    anthropicEvent("content_block_start", { index: 0, content_block: { type: "tool_use", id: "toolu_fake_1", name, input: {} } }),
    anthropicEvent("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: args.slice(0, cut) } }),
    anthropicEvent("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: args.slice(cut) } }),
    anthropicEvent("content_block_stop", { index: 0 }),
    anthropicEvent("message_delta", { delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 7 } }),
    anthropicEvent("message_stop", {}),
  ],
};

const TOOL_WIRES: Partial<Record<Dialect, ToolWire>> = { chat: chatTools, messages: messagesTools };

const WIRES: Record<Dialect, Wire> = { chat: chatWire, responses: responsesWire, messages: messagesWire };
const DIALECT_PATHS: Record<string, Dialect> = { "/v1/chat/completions": "chat", "/v1/responses": "responses", "/v1/messages": "messages" };

type Part = { type?: string; text?: string };
const partsText = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? (content as Part[]).filter((p) => typeof p.text === "string").map((p) => p.text).join("\n") : "";

/** The last user text and the system prompt, read the way each dialect carries them. */
function readConversation(dialect: Dialect, body: any): Conversation {
  const base = { model: String(body.model), stream: body.stream === true };
  if (dialect === "responses") {
    const items = typeof body.input === "string" ? [{ role: "user", content: body.input }] : (body.input ?? []);
    const lastUser = [...items].reverse().find((item: { role?: string }) => item.role === "user");
    return { ...base, lastUser: partsText(lastUser?.content), system: body.instructions ?? "" };
  }
  const messages = body.messages ?? [];
  const lastUser = [...messages].reverse().find((m: { role: string }) => m.role === "user");
  const system =
    dialect === "messages" ? partsText(body.system) : messages.filter((m: { role: string }) => m.role === "system" || m.role === "developer").map((m: { content: unknown }) => partsText(m.content)).join("\n");
  return { ...base, lastUser: partsText(lastUser?.content), system };
}

/** Ordinary varied prose of about `bytes` bytes. */
function largeAnswer(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const sentence = `Paragraph ${i} reviews the quarterly figures for region ${i % 17} and notes ${(i * 7919) % 1000} open items. `;
    parts.push(sentence);
    size += sentence.length;
  }
  return parts.join("");
}

function longEcho(prompt: string): string {
  return ["The forecast", "Tomorrow's outlook", "The weekend", "Next week"]
    .map((when) => `${when} for "${prompt}" shows mild temperatures, light winds from the west and showers later on.`)
    .join(" ");
}

const PIECE = "a".repeat(64 * 1024);

/**
 * "huge:<bytes>" and "endless-event": an answer produced piece by piece as the reader pulls, so
 * the fake never holds it (the test is about the proxy's memory, not the fake's).
 */
function pieceByPiece(request: Request, dialect: Dialect, model: string, streamed: boolean, bytes: number, onCancel: () => void): Response {
  const wire = WIRES[dialect];
  const head = !streamed ? '{"id":"huge","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"' : model === "endless-event" ? 'data: {"choices":[{"index":0,"delta":{"content":"' : wire.start("huge", model, { input: 5, output: 1 }).join("");
  const piece = !streamed || model === "endless-event" ? PIECE : wire.delta("huge", model, "a".repeat(1000));
  let sent = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (request.signal.aborted) return controller.close();
        if (sent === 0) {
          sent += head.length;
          return controller.enqueue(encoder.encode(head));
        }
        if (sent >= bytes) {
          controller.enqueue(encoder.encode(!streamed ? '"},"finish_reason":"stop"}]}' : model === "endless-event" ? "" : wire.terminal("huge", model, "", { input: 1, output: 1 })));
          return controller.close();
        }
        sent += piece.length;
        controller.enqueue(encoder.encode(piece));
      },
      cancel: onCancel,
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { headers: { "content-type": streamed ? "text/event-stream" : "application/json" } });
}

export function startFakeUpstream(): FakeUpstream {
  const received: ReceivedRequest[] = [];
  const arrivals: string[] = [];
  let gateWaiters: (() => void)[] = [];
  let abortedCount = 0;
  let requestCount = 0;
  const seenModels = new Map<string, number>();

  async function answerDialect(request: Request, dialect: Dialect, rawBody: string): Promise<Response> {
    const wire = WIRES[dialect];
    const parsedBody = JSON.parse(rawBody);
    const { model, stream: streamed, lastUser, system } = readConversation(dialect, parsedBody);
    const includeUsage = parsedBody.stream_options?.include_usage === true;
    const answer = model.startsWith("say:") ? model.slice(4) : model.startsWith("large:") ? largeAnswer(Number(model.slice(6))) : model === "leak" ? system : model === "echo-long" ? longEcho(lastUser) : `echo: ${lastUser || "…"}`;

    if (model === "stall") {
      await new Promise<void>((resolve) => request.signal.addEventListener("abort", () => resolve()));
      abortedCount++;
      return new Response("aborted", { status: 499 });
    }
    const ttfb = /^ttfb:(\d+)$/.exec(model);
    if (ttfb) {
      const aborted = new Promise<boolean>((resolve) => request.signal.addEventListener("abort", () => resolve(true)));
      if (await Promise.race([Bun.sleep(Number(ttfb[1])).then(() => false), aborted])) {
        abortedCount++;
        return new Response("aborted", { status: 499 });
      }
    }
    const seen = (seenModels.get(model) ?? 0) + 1;
    seenModels.set(model, seen);
    const flaky = /^flaky-(\d{3})-(\d+)(?:-after-(\d+))?$/.exec(model);
    if (flaky && seen <= Number(flaky[2])) {
      const after = flaky[3] === undefined ? {} : { "retry-after-ms": flaky[3], "retry-after": String(Math.ceil(Number(flaky[3]) / 1000)) };
      return Response.json(wire.error(Number(flaky[1]), "fake provider error"), { status: Number(flaky[1]), headers: after });
    }
    const tool = /^tool:(\w+)(?::(\d+))?$/.exec(model);
    const toolWire = TOOL_WIRES[dialect];
    if (tool && toolWire) {
      const args = JSON.stringify({ city: lastUser });
      if (!streamed) return Response.json(toolWire.json(`tool-${++requestCount}`, model, tool[1]!, args));
      const events = toolWire.stream(`tool-${++requestCount}`, model, tool[1]!, args, Number(tool[2] ?? 5));
      return new Response(events.map((event) => (dialect === "chat" ? chatEventFor(event, includeUsage) : event)).join(""), { headers: { "content-type": "text/event-stream" } });
    }
    const huge = /^huge:(\d+)$/.exec(model);
    if (huge || model === "endless-event") return pieceByPiece(request, dialect, model, streamed, huge ? Number(huge[1]) : 1024 ** 3, () => abortedCount++);
    if (model === "malformed" && !streamed) return new Response('{"id": "broken", "choices": [{"mess', { headers: { "content-type": "application/json" } });
    const errorStatus = /^error-(\d{3})$/.exec(model);
    if (errorStatus) return Response.json(wire.error(Number(errorStatus[1]), "fake provider error"), { status: Number(errorStatus[1]), headers: { "x-request-id": "fake-req" } });
    const id = `${dialect === "chat" ? "chatcmpl" : dialect === "responses" ? "resp" : "msg"}-fake-${++requestCount}`;
    const usage: Usage = model === "usage-detail" ? { input: 50, output: 30, cached: 20, reasoning: 10 } : { input: 5, output: answer.split(" ").length, none: model === "no-usage" };
    if (!streamed && model === "slow-body") {
      const json = JSON.stringify(wire.json(id, model, answer, usage));
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode(json.slice(0, 10)));
          await Bun.sleep(SLOW_BODY_MS);
          controller.enqueue(encoder.encode(json.slice(10)));
          controller.close();
        },
      });
      return new Response(body, { headers: { "content-type": "application/json", "x-request-id": "fake-req" } });
    }
    if (!streamed) return Response.json(wire.json(id, model, answer, usage), { headers: { "x-request-id": "fake-req" } });

    const pieces = /^pieces:(\d+)$/.exec(model);
    const words = pieces ? (answer.match(new RegExp(`[^]{1,${pieces[1]}}`, "g")) ?? []) : answer.split(/(?<= )/);
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        const send = (text: string) => {
          const event = dialect === "chat" ? chatEventFor(text, includeUsage) : text;
          if (event) controller.enqueue(encoder.encode(event));
        };
        try {
          for (const event of wire.start(id, model, usage)) send(event);
          for (let i = 0; i < words.length; i++) {
            if (request.signal.aborted) throw new Error("client aborted");
            send(wire.delta(id, model, words[i]!));
            if (model === "drop" && i === 1) {
              await Bun.sleep(20); // let the headers and first events leave before the break
              controller.error(new Error("connection dropped"));
              return;
            }
            if (model === "gated" && i === 0) await new Promise<void>((resolve) => gateWaiters.push(resolve));
            if (model === "slow") await Bun.sleep(30);
          }
          for (const event of wire.end(id, model, answer, usage)) send(event);
          if (model !== "no-done") send(wire.terminal(id, model, answer, usage));
          controller.close();
        } catch {
          abortedCount++;
        }
      },
      cancel() {
        abortedCount++;
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  }

  /** The provider paths other than the three dialects, for pass-through tests. */
  async function answerOther(request: Request, path: string, body: string, anthropic: boolean): Promise<Response> {
    if (request.method === "GET" && path === "/v1/models") {
      return anthropic
        ? Response.json({ data: [{ type: "model", id: "claude-fake", display_name: "Claude Fake", created_at: "2025-01-01T00:00:00Z" }], has_more: false, first_id: "claude-fake", last_id: "claude-fake" })
        : Response.json({ object: "list", data: [{ id: "gpt-fake", object: "model", created: CREATED, owned_by: "fake" }] });
    }
    if (request.method === "POST" && path === "/v1/embeddings") {
      const parsed = JSON.parse(body);
      const inputs: string[] = typeof parsed.input === "string" ? [parsed.input] : parsed.input;
      const data = inputs.map((_, index) => ({ object: "embedding", index, embedding: Array.from({ length: 1536 }, (_, i) => ((i + index) % 7) / 7) }));
      return Response.json({ object: "list", data, model: parsed.model, usage: { prompt_tokens: 3, total_tokens: 3 } });
    }
    if (request.method === "POST" && path === "/v1/files") {
      return Response.json({ id: "file-fake", object: "file", bytes: Buffer.byteLength(body), created_at: CREATED, filename: /filename="([^"]+)"/.exec(body)?.[1] ?? "", purpose: /name="purpose"\r\n\r\n([^\r]+)/.exec(body)?.[1] ?? "", status: "processed" });
    }
    const content = /^\/v1\/files\/([\w-]+)\/content$/.exec(path);
    if (request.method === "GET" && content) {
      return new Response(new Uint8Array([0, 1, 2, 250, 251, 252, 253, 254, 255]), { headers: { "content-type": "application/octet-stream", "content-disposition": `attachment; filename="${content[1]}.bin"` } });
    }
    const stored = /^\/v1\/responses\/([\w-]+)$/.exec(path);
    if (request.method === "GET" && stored) return Response.json(responseObject(stored[1]!, "gpt-fake", "a stored answer", { input: 1, output: 3 }));
    if (request.method === "POST" && path === "/v1/messages/count_tokens") return Response.json({ input_tokens: body.length });
    return Response.json({ error: { message: `fake provider: no route ${request.method} ${path}` } }, { status: 404 });
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 255,
    async fetch(request) {
      const url = new URL(request.url);
      arrivals.push(url.pathname);
      const body = await request.text();
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => (headers[name] = value));
      received.push({ body, headers, path: url.pathname + url.search, method: request.method });
      const dialect = request.method === "POST" ? DIALECT_PATHS[url.pathname] : undefined;
      return dialect ? answerDialect(request, dialect, body) : answerOther(request, url.pathname, body, headers["anthropic-version"] !== undefined);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    anthropicUrl: `http://127.0.0.1:${server.port}`,
    received,
    arrivals,
    openGate: () => {
      const waiting = gateWaiters;
      gateWaiters = [];
      for (const release of waiting) release();
    },
    aborted: () => abortedCount,
    stop: () => server.stop(true),
  };
}
