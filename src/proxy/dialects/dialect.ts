import type { ZodType } from "zod";
import type { SseEvent } from "../sse";

/** Which provider API a request used, as the evidence log records it ("POST /v1/responses"). */
export type ApiName = string;

/**
 * Token counts in the evidence log's terms, whatever the dialect calls them. prompt_tokens is every
 * input token, cached ones included (Anthropic's input_tokens leaves cache reads and writes out:
 * they are added); cached_tokens were read from the provider's prompt cache, cache_write_tokens
 * written to it (Anthropic), reasoning_tokens are the part of completion_tokens spent thinking.
 */
export type Usage = { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number; cached_tokens?: number; cache_write_tokens?: number; reasoning_tokens?: number };

/**
 * Where a text comes from, as the firewall reads it: `user` for what the user (or the system
 * prompt) says, `data` for what the application passes along as material — tool and function
 * results, documents, files. On the data channel an instruction to an AI assistant is itself the
 * suspicious thing (docs/firewall.md, *Channels*).
 */
export type Channel = "user" | "data";

/** A text the input firewall may scan: system texts only when the workspace scans system prompts. */
export type ScannedText = { system: boolean; text: string; channel: Channel };

/**
 * What the cache keys on, in the same shape for every dialect: the parameters (every body field
 * except the conversation and delivery-only fields), the conversation before its last turn, the
 * last turn, and that turn's text when a semantic lookup may match it.
 */
export type CacheSubject = {
  params: Record<string, unknown>;
  prefix: unknown[];
  last: unknown;
  /** The last turn without its text: part of the scope key, so only paraphrases of it match. */
  lastWithoutText: unknown;
  /** Text of the last turn when it is a user turn made of text only; otherwise exact hits only. */
  prompt: string | undefined;
  /** False when a streamed transcript would lose something the request asked for (e.g. logprobs). */
  storeStreamed: boolean;
};

/** A request body as the stages see it: plain data, the same for every dialect. */
export type RequestView = {
  api: ApiName;
  model: string;
  stream: boolean;
  /** Texts of the input turns in conversation order: user and tool turns, and system turns. */
  texts: ScannedText[];
  /** Undefined when the answer depends on state kept by the provider: such requests are never cached. */
  cache: CacheSubject | undefined;
  /** The part of the body that is the prompt; hashed into the evidence record. */
  conversation: unknown;
};

/** An answer read from a provider response (non-streamed, or a whole stream). */
export type Answer = {
  /** The assistant text the output check reads. */
  text: string;
  usage: Usage | undefined;
  /** Finished normally: only complete answers are cached. */
  complete: boolean;
};

/** Accumulates one provider stream: the assistant text for the output monitor, the whole response for cache and evidence. */
export interface StreamTranscript {
  /** Adds one SSE event; returns the assistant text it added. */
  add(event: SseEvent): string;
  /** The event that ends a complete stream; it is held back until the output monitor's last check. */
  isEnd(event: SseEvent): boolean;
  /** True once the end event arrived. */
  readonly done: boolean;
  readonly text: string;
  readonly usage: Usage | undefined;
  /** The stream as the JSON a non-streamed request would have received. */
  toResponse(): Record<string, unknown>;
}

/** The error bodies a dialect's clients understand. */
export type ErrorKind = "blocked" | "rate_limited" | "upstream_error" | "upstream_timeout" | "upstream_unreachable" | "upstream_refused" | "upstream_unavailable" | "upstream_too_large";

/**
 * One provider API: how to read its requests, its answers and its streams, and how to speak its
 * error formats. The pipeline (firewall → cache → forward → evidence) is the same for all.
 */
export interface Dialect {
  /** Short name, the dialect label of the proxy metrics. */
  name: "openai_chat" | "openai_responses" | "anthropic_messages";
  api: ApiName;
  provider: "openai" | "anthropic";
  /** Appended to the provider's base URL. */
  upstreamPath: string;
  /** Request headers passed on to the provider; everything else (above all X-Service-*) stays here. */
  forwardedHeaders: readonly string[];
  schema: ZodType<Record<string, unknown>>;
  /** Reads a body that passed `schema`. */
  read(body: Record<string, unknown>): RequestView;
  /** The answer in a provider's JSON response, or undefined when the JSON is not one of this dialect's answers. */
  answer(json: unknown): Answer | undefined;
  transcript(): StreamTranscript;
  /** A stored answer as this dialect's stream of events. */
  replayStream(stored: Record<string, unknown>): string;
  /**
   * Asks the provider for the usage of a stream whose client did not (chat's
   * `stream_options.include_usage`): the body to forward instead, or undefined when nothing was added.
   */
  requestUsage?(body: Record<string, unknown>, rawBody: string): string | undefined;
  /** An event of a stream whose usage Sieve asked for, as the client that did not ask gets it ("": not at all). */
  hideUsage?(event: SseEvent): string;
  /** A JSON error body Sieve answers with itself (blocked request, provider unreachable…). */
  errorBody(kind: ErrorKind, message: string, requestId: string, reason?: string | null): Record<string, unknown>;
  /** The event that ends a stream Sieve cuts short; each official SDK raises it as an error. */
  streamError(kind: ErrorKind, message: string, requestId: string, reason?: string | null): string;
}
