// How values read on screen. Times show in the viewer's locale with the ISO value in a tooltip.

import { h } from "./dom.mjs";

export function time(iso) {
  if (!iso) return h("span", { class: "muted" }, "never");
  const date = new Date(iso);
  return h("time", { datetime: iso, title: iso }, date.toLocaleString());
}

/** Milliseconds as read at a glance: 71.1501 → "71 ms", 3.456 → "3.5 ms", 0.0421 → "0.04 ms". */
export function ms(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  const digits = Number.isInteger(value) || Math.abs(value) >= 10 ? 0 : Math.abs(value) >= 1 ? 1 : 2;
  return `${value.toFixed(digits)} ms`;
}

export const percent = (ratio) => (ratio === null || ratio === undefined || Number.isNaN(ratio) ? "–" : `${(ratio * 100).toFixed(1)} %`);

export function bytes(count) {
  if (count === null || count === undefined) return "–";
  if (count < 1024) return `${count} B`;
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KiB`;
  return `${(count / 1024 / 1024).toFixed(1)} MiB`;
}

/** snake_case API names as words: "chunk_breakdown" → "Chunk breakdown". */
export function label(name) {
  const words = String(name).replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Any JSON value as short text (for generic key/value lists). */
export function plain(value) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(3);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A logged body: pretty JSON when it parses, else the text as it was. */
export function prettyBody(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Nearest-rank percentile of numbers (sorted copy). */
export function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
