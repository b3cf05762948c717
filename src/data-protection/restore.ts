import { eventJson, formatSseEvent, type SseEvent } from "../proxy/sse";
import { MAX_PLACEHOLDER_LENGTH, PLACEHOLDER } from "./placeholders";

/** Keys whose string value is itself JSON (tool-call arguments): a restored value is escaped for it. */
const JSON_TEXT_KEYS = new Set(["arguments", "partial_json"]);

/** The text with each masked placeholder replaced by its value (JSON-escaped inside JSON text). */
export function restoreText(text: string, masked: ReadonlyMap<string, string>, jsonText = false): string {
  if (masked.size === 0 || !text.includes("[")) return text;
  return text.replace(PLACEHOLDER, (placeholder) => {
    const value = masked.get(placeholder);
    if (value === undefined) return placeholder;
    return jsonText ? JSON.stringify(value).slice(1, -1) : value;
  });
}

/** Restores every string in a JSON value (a provider's answer) in place. */
export function restoreJson(value: unknown, masked: ReadonlyMap<string, string>): void {
  walkStrings(value, [], (text, path) => restoreText(text, masked, JSON_TEXT_KEYS.has(String(path.at(-1)))));
}

type Path = (string | number)[];

/** Calls `visit` on every string in a JSON value and stores what it returns in its place. */
export function walkStrings(value: unknown, path: Path, visit: (text: string, path: Path) => string): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (typeof value[i] === "string") value[i] = visit(value[i], [...path, i]);
      else if (value[i] && typeof value[i] === "object") walkStrings(value[i], [...path, i], visit);
    }
  } else if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = record[key];
      if (typeof child === "string") record[key] = visit(child, [...path, key]);
      else if (child && typeof child === "object") walkStrings(child, [...path, key], visit);
    }
  }
}

/** How much of a text's end could be the start of a placeholder ("[EMAI"), to be held back until the next piece. */
function heldBackFrom(text: string): number {
  const open = text.lastIndexOf("[");
  if (open === -1 || text.length - open >= MAX_PLACEHOLDER_LENGTH) return text.length;
  return /^\[[A-Z0-9_]*$/.test(text.slice(open)) ? open : text.length;
}

/** Identifies the fields an event's identity lives in, which a flushed remainder event keeps. */
const IDENTITY_KEYS = new Set(["id", "object", "created", "model", "type", "index", "output_index", "content_index", "item_id", "sequence_number"]);

type Channel = { pending: string; template: Record<string, unknown>; path: Path; event: string | undefined };

/**
 * Restores masked values in a provider's stream, event by event. Text deltas (any string under a
 * "delta" key: chat content and tool-call arguments, Responses text and argument deltas, Messages
 * text and partial_json) form channels; a placeholder may arrive split across a channel's deltas,
 * so only a possible placeholder prefix at a delta's end ("[EMA") is held back and sent with the
 * next delta of the channel. When another event comes first, what was held is sent in an event
 * of its own, shaped like the channel's last delta. Every other string (whole texts in done and
 * completed events) is restored in place.
 */
export class StreamRestorer {
  readonly #masked: ReadonlyMap<string, string>;
  readonly #channels = new Map<string, Channel>();

  constructor(masked: ReadonlyMap<string, string>) {
    this.#masked = masked;
  }

  /** The event as the client receives it (possibly preceded by the remainder of a channel it interrupts). */
  rewrite(event: SseEvent): string {
    if (this.#channels.size === 0 && !event.data.includes("[")) return event.raw;
    const json = eventJson(event);
    if (!json) return this.#flushAll() + event.raw;
    const touched = new Set<string>();
    walkStrings(json, [], (text, path) => {
      const jsonText = JSON_TEXT_KEYS.has(String(path.at(-1)));
      if (!path.includes("delta")) return restoreText(text, this.#masked, jsonText);
      const key = channelKey(json, path);
      touched.add(key);
      const channel = this.#channels.get(key);
      const combined = (channel?.pending ?? "") + text;
      const cut = heldBackFrom(combined);
      if (cut < combined.length) this.#channels.set(key, { pending: combined.slice(cut), template: json, path, event: event.event });
      else this.#channels.delete(key);
      return restoreText(combined.slice(0, cut), this.#masked, jsonText);
    });
    let before = "";
    for (const [key, channel] of this.#channels) {
      if (touched.has(key)) continue;
      before += this.#remainder(channel);
      this.#channels.delete(key);
    }
    return before + formatSseEvent(json, event.event);
  }

  #flushAll(): string {
    let out = "";
    for (const channel of this.#channels.values()) out += this.#remainder(channel);
    this.#channels.clear();
    return out;
  }

  #remainder(channel: Channel): string {
    const jsonText = JSON_TEXT_KEYS.has(String(channel.path.at(-1)));
    return formatSseEvent(skeleton(channel.template, channel.path, restoreText(channel.pending, this.#masked, jsonText)), channel.event);
  }
}

function channelKey(json: Record<string, unknown>, path: Path): string {
  return `${path.join(".")}|${json.output_index ?? ""}|${json.content_index ?? ""}|${json.index ?? ""}|${json.item_id ?? ""}`;
}

/** The event's identity fields and, along `path`, only what locates the leaf, which is set to `text`. */
function skeleton(template: Record<string, unknown>, path: Path, text: string): Record<string, unknown> {
  const keep = (node: Record<string, unknown>) => Object.fromEntries(Object.entries(node).filter(([k, v]) => IDENTITY_KEYS.has(k) && (v === null || typeof v !== "object")));
  const root = keep(template);
  let source: unknown = template;
  let target: Record<string, unknown> | unknown[] = root;
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    source = (source as Record<string | number, unknown>)[step];
    const last = i === path.length - 1;
    const next = last ? text : Array.isArray(source) ? [] : keep(source as Record<string, unknown>);
    if (Array.isArray(target)) target.push(next);
    else target[step] = next;
    if (!last) target = next as Record<string, unknown> | unknown[];
  }
  return root;
}
