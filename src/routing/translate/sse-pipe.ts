import { SseParser, type SseEvent } from "../../proxy/sse";

/** Rewrites one stream's events into the other API's: the client-side SSE text for each event ("" for none). */
export interface EventTranslator {
  translate(event: SseEvent): string;
}

const encoder = new TextEncoder();

/**
 * Relays `upstream` through `translator` as the client reads: each pull reads upstream until a
 * whole event yields output (an event split across reads, or a UTF-8 character split across
 * them, waits for its rest), so nothing is buffered beyond one unfinished event. Cancelling the
 * result cancels upstream; an upstream failure, or an unfinished event longer than
 * `maxEventChars` (SseEventTooLong), errors it. A stream that ends without its end event ends
 * here without one too: the reader tells a cut stream from a complete one as it would upstream.
 */
export function translateSse(upstream: ReadableStream<Uint8Array>, translator: EventTranslator, maxEventChars = Number.POSITIVE_INFINITY): ReadableStream<Uint8Array> {
  const reader = upstream.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser(maxEventChars);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          while (true) {
            const chunk = await reader.read();
            if (chunk.done) return controller.close();
            const out = parser
              .push(decoder.decode(chunk.value, { stream: true }))
              .map((event) => translator.translate(event))
              .join("");
            if (out) return controller.enqueue(encoder.encode(out));
          }
        } catch (error) {
          reader.cancel(error).catch(() => {});
          throw error;
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
