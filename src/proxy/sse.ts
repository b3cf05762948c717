/** One server-sent event: its raw text (relayed unchanged) and the parsed fields. */
export type SseEvent = { raw: string; event: string | undefined; data: string };

export const SSE_DONE = "[DONE]";

/**
 * Incremental SSE parser: feed it decoded text as it arrives, get back the events completed
 * so far. Only complete events are returned, so a relay never forwards half an event.
 */
export class SseParser {
  #buffer = "";

  /** `maxEventChars`: an unfinished event longer than this throws SseEventTooLong (a line that never ends must not grow without bound). */
  constructor(private readonly maxEventChars = Number.POSITIVE_INFINITY) {}

  push(text: string): SseEvent[] {
    this.#buffer += text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
    const events: SseEvent[] = [];
    let end: number;
    while ((end = this.#buffer.indexOf("\n\n")) >= 0) {
      const raw = this.#buffer.slice(0, end + 2);
      this.#buffer = this.#buffer.slice(end + 2);
      events.push(parseEvent(raw));
    }
    if (this.#buffer.length > this.maxEventChars) throw new SseEventTooLong();
    return events;
  }

  /** Text received after the last complete event. */
  get remainder(): string {
    return this.#buffer;
  }
}

function parseEvent(raw: string): SseEvent {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of raw.split("\n")) {
    if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    else if (line.startsWith("event:")) event = line.slice(6).trim();
  }
  return { raw, event, data: data.join("\n") };
}

export function formatSseEvent(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
}

/** The chat-completions error event a client receives when Sieve ends a stream early (other dialects use their own format). */
export function sseErrorEvent(type: string, message: string, requestId: string, extra: Record<string, unknown> = {}): string {
  return formatSseEvent({ error: { type, message, request_id: requestId, ...extra } }, "error");
}

/** An event's data as a JSON object, or undefined when it is not one. */
export function eventJson(event: SseEvent): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(event.data);
    return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export class SseEventTooLong extends Error {}
