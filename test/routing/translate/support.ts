import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { newTranslation } from "../../../src/routing/translate";
import type { Translation } from "../../../src/routing/translate";
import { eventJson, SseParser } from "../../../src/proxy/sse";

/** A translation that must exist. */
export function translationOf(from: "openai_chat" | "anthropic_messages"): Translation {
  const translation = newTranslation(from, from === "openai_chat" ? "anthropic" : "openai");
  if (!translation) throw new Error(`no translation from ${from}`);
  return translation;
}

/** The JSON a translation's request() wrote. */
export const requestJson = (translation: Translation, body: Record<string, unknown>, model = "target-model") => JSON.parse(translation.request(body, model));

/** The HttpError's detail a call throws, or a failure when it does not throw. */
export function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    const { status, detail } = error as { status?: number; detail?: string };
    if (status !== 400 || typeof detail !== "string") throw error;
    return detail;
  }
  throw new Error("expected a 400, but the request was translated");
}

/** SSE text as the bytes of a provider stream, cut every `size` bytes (so events and UTF-8 characters split across reads). */
export function byteStream(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

export const readText = (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

/** A stream's events as `{event, data}`, data parsed when it is JSON. */
export function sseEvents(text: string): { event: string | undefined; data: any }[] {
  const parser = new SseParser();
  return parser.push(text).map((event) => ({ event: event.event, data: eventJson(event) ?? event.data }));
}

export const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
export const anthropicEvent = (type: string, fields: object = {}) => sse({ type, ...fields }, type);

/** A client whose every request gets `respond()`'s response: the SDK parses translated bytes as if they came from the provider. */
const fakeFetch = (respond: () => Response) => (async () => respond()) as unknown as typeof fetch;

export const openaiClient = (respond: () => Response) => new OpenAI({ apiKey: "test", baseURL: "http://provider.test/v1", maxRetries: 0, fetch: fakeFetch(respond) });
export const anthropicClient = (respond: () => Response) => new Anthropic({ apiKey: "test", baseURL: "http://provider.test", maxRetries: 0, fetch: fakeFetch(respond) });

export const eventStream = (body: ReadableStream<Uint8Array> | string) => new Response(body, { headers: { "content-type": "text/event-stream" } });
export const jsonResponse = (body: unknown, status = 200) => Response.json(body, { status });
