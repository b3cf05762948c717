import type { Dialect, StreamTranscript } from "./dialects/dialect";
import { SseEventTooLong, SseParser, type SseEvent } from "./sse";
import type { FirewallVerdict, OutputMonitor } from "./stages";

export type StreamOutcome =
  | { kind: "completed"; transcript: StreamTranscript; outputVerdict: FirewallVerdict | undefined }
  | { kind: "blocked"; transcript: StreamTranscript; outputVerdict: FirewallVerdict }
  | { kind: "upstream_error"; transcript: StreamTranscript; error: string }
  | { kind: "client_aborted"; transcript: StreamTranscript };

export type RelayOptions = {
  requestId: string;
  /** Reads the provider's events and speaks the client's error format. */
  dialect: Dialect;
  upstream: ReadableStream<Uint8Array>;
  abortUpstream: (reason?: string) => void;
  monitor: OutputMonitor | undefined;
  /** Rewrites each event for the client (data protection's mask restore); the transcript keeps the provider's. */
  restorer?: { rewrite(event: SseEvent): string };
  /** Longest pause between two chunks before the stream is treated as stalled. */
  idleTimeoutMs: number;
  /** --max-response-bytes: the most bytes read from the provider for this stream. */
  maxBytes: number;
  /** --max-sse-event-bytes: the longest single event (counted in characters). */
  maxEventBytes: number;
  onEnd: (outcome: StreamOutcome) => void;
  /** Sieve asked for usage the client did not: the dialect leaves it out of what the client gets. */
  hideUsage: boolean;
};

const encoder = new TextEncoder();

/**
 * Relays a provider's SSE stream to the client event by event as it arrives (never buffering
 * the whole response), feeding each event to the transcript and the firewall's output monitor.
 * A dropped or stalled upstream ends the stream with the dialect's error event; a block verdict
 * ends it with the blocked_by_firewall error event and aborts the provider request.
 */
export function relayStream(options: RelayOptions): ReadableStream<Uint8Array> {
  const reader = options.upstream.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser(options.maxEventBytes);
  const transcript = options.dialect.transcript();
  let received = 0;
  let ended = false;
  let finalVerdict: FirewallVerdict | undefined;
  const end = (outcome: StreamOutcome) => {
    if (ended) return;
    ended = true;
    options.onEnd(outcome);
  };

  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, message: string) => {
    controller.enqueue(encoder.encode(options.dialect.streamError("upstream_error", message, options.requestId)));
    controller.close();
    options.abortUpstream("upstream failed");
    end({ kind: "upstream_error", transcript, error: message });
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // Loop until something is enqueued: a read may yield only part of an event.
        while (true) {
          let chunk: Awaited<ReturnType<typeof reader.read>>;
          try {
            chunk = await readWithin(reader, options.idleTimeoutMs);
          } catch (error) {
            // Our own stall message says what happened; a network error's text is the runtime's, not the client's business.
            return fail(controller, error instanceof StreamStalled ? error.message : "the provider stream broke off");
          }
          if (chunk.done) {
            if (!transcript.done) return fail(controller, "the provider closed the stream before its end event");
            controller.close();
            return end({ kind: "completed", transcript, outputVerdict: finalVerdict });
          }
          // A stream whose answer or whose one event never ends would hold ever more memory: both are bounded.
          received += chunk.value.byteLength;
          if (received > options.maxBytes) return fail(controller, `the provider's stream is longer than --max-response-bytes (${options.maxBytes} bytes)`);
          let events;
          try {
            events = parser.push(decoder.decode(chunk.value, { stream: true }));
          } catch (error) {
            if (!(error instanceof SseEventTooLong)) throw error;
            return fail(controller, `an event of the provider's stream is longer than --max-sse-event-bytes (${options.maxEventBytes})`);
          }
          if (events.length === 0) continue;
          let out = "";
          /** Sends the events already passed: only the event a check is for waits for it, not those before it in the same read. */
          const flush = () => {
            if (out) controller.enqueue(encoder.encode(out));
            out = "";
          };
          for (const event of events) {
            const added = transcript.add(event);
            // The whole answer is checked before the end event goes out, so a leak in its last,
            // unfinished sentence can still be cut.
            let verdict: FirewallVerdict | undefined;
            if (options.monitor && added) {
              const inspected = options.monitor.inspect(added, transcript.text);
              if (inspected instanceof Promise) flush();
              verdict = await inspected;
            } else if (options.monitor && transcript.isEnd(event)) {
              flush();
              verdict = finalVerdict = await options.monitor.finish(transcript.text);
            }
            if (verdict?.action === "block") {
              flush();
              controller.enqueue(encoder.encode(options.dialect.streamError("blocked", verdict.reason ?? "blocked", options.requestId, verdict.reason)));
              controller.close();
              options.abortUpstream("blocked by firewall");
              return end({ kind: "blocked", transcript, outputVerdict: verdict });
            }
            out += relayedEvent(event, options);
          }
          flush();
          return;
        }
      },
      cancel() {
        options.abortUpstream("client disconnected");
        reader.cancel().catch(() => {});
        end({ kind: "client_aborted", transcript });
      },
    },
    { highWaterMark: 0 },
  );
}

class StreamStalled extends Error {}

async function readWithin<R>(reader: { read(): Promise<R> }, ms: number): Promise<R> {
  let timer: Timer | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StreamStalled(`the provider stream sent no data for ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([reader.read(), stalled]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What the client gets of one provider event: the usage Sieve asked for and the client did not
 * left out (hideUsage), then the values data protection masked restored (restorer).
 */
function relayedEvent(event: SseEvent, options: Pick<RelayOptions, "hideUsage" | "dialect" | "restorer">): string {
  const hide = options.hideUsage ? options.dialect.hideUsage : undefined;
  const shown = hide ? hide(event) : event.raw;
  if (!options.restorer) return shown;
  if (shown === event.raw) return options.restorer.rewrite(event);
  // The same cut applied to the data line alone gives the event's new data (an emptied event stays empty).
  return shown === "" ? "" : options.restorer.rewrite({ ...event, raw: shown, data: hide!({ ...event, raw: event.data }) });
}
