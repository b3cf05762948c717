/** The API family a target speaks (src/routing/table.ts `speaks`). */
export type ApiFamily = "openai" | "anthropic";

/** The dialect a client spoke (src/proxy/dialects: `Dialect.name`). */
export type ClientDialect = "openai_chat" | "openai_responses" | "anthropic_messages";

/**
 * One request carried across to the other provider family and its answer carried back. An
 * instance belongs to one request: `request()` records what the client asked that shapes the
 * answer (e.g. chat's `stream_options.include_usage`), which `stream()` then honours.
 */
export interface Translation {
  /** The target API's path, appended to the target's base_url: "/chat/completions" (OpenAI kinds, base URL ends in /v1) or "/v1/messages" (Anthropic). */
  readonly path: string;
  /** The request body for the target, as JSON text, with `model` set to `model`. Throws badRequest("<field path>: … cannot be translated to <API>") for anything that cannot be carried faithfully. */
  request(body: Record<string, unknown>, model: string): string;
  /** Request headers for the target's API that the client's API does not send. */
  readonly extraHeaders: Record<string, string>;
  /** A non-streamed success answer of the target's API → the client's API (model: the model the client asked for). Undefined if `json` is not an answer of the target's API. */
  answer(json: unknown, requestedModel: string): Record<string, unknown> | undefined;
  /** A provider error body of the target's API (any status) → the client's API's error shape. */
  error(json: unknown, status: number): Record<string, unknown>;
  /**
   * The target's SSE stream → the client's API's SSE stream, event by event, as the client pulls.
   * Cancelling it cancels `upstream`. `maxEventChars` bounds one unfinished upstream event
   * (the stream errors with SseEventTooLong beyond it), as --max-sse-event-bytes does in the relay.
   */
  stream(upstream: ReadableStream<Uint8Array>, requestedModel: string, limits?: { maxEventChars?: number }): ReadableStream<Uint8Array>;
}
