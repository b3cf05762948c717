import { scanText, type CompiledPolicy } from "./policy";
import type { Finding } from "./model";
import type { Placeholders } from "./placeholders";

/** A finding and where in the JSON body it was, as "messages[2].content". */
export type LocatedFinding = Finding & { where: string };

/**
 * Strings that are structure, not content: names of models, roles, types, ids and tool names,
 * and tool definitions. Everything else in a body (every message of every role, text parts, tool
 * results, tool-call arguments in the history, metadata) is scanned.
 */
const STRUCTURAL_KEYS = new Set([
  "model", "role", "type", "id", "tool_call_id", "call_id", "previous_response_id", "name", "status",
  "finish_reason", "stop_reason", "media_type", "detail", "object", "tools", "tool_choice", "response_format",
]);
/** Inline files (images, PDFs) as data URLs or base64 sources are not text. */
const INLINE_DATA = /^data:[\w.+\-/]{1,100};base64,/;

type Slot = { holder: Record<string, unknown> | unknown[]; key: string | number; text: string; where: string };

function collect(value: unknown, where: string, slots: Slot[]): void {
  if (Array.isArray(value)) {
    value.forEach((child, i) => visit(value, i, child, `${where}[${i}]`, slots));
  } else if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const base64Source = record.type === "base64";
    for (const key of Object.keys(record)) {
      if (STRUCTURAL_KEYS.has(key) || (base64Source && key === "data")) continue;
      visit(record, key, record[key], where ? `${where}.${key}` : key, slots);
    }
  }
}

function visit(holder: Slot["holder"], key: string | number, child: unknown, where: string, slots: Slot[]): void {
  if (typeof child === "string") {
    if (!INLINE_DATA.test(child)) slots.push({ holder, key, text: child, where });
  } else if (child && typeof child === "object") collect(child, where, slots);
}

/**
 * Scans every content string of a JSON body (a request, or a provider's answer) and replaces the
 * findings whose action `replaces` in place. Returns what was found, in document order.
 */
export async function scanJson(
  body: unknown,
  policy: CompiledPolicy,
  placeholders: Placeholders,
  replaces: (finding: Finding) => boolean,
): Promise<LocatedFinding[]> {
  const slots: Slot[] = [];
  collect(body, "", slots);
  const located: LocatedFinding[] = [];
  for (const slot of slots) {
    const findings = await scanText(slot.text, policy);
    if (findings.length === 0) continue;
    for (const finding of findings) located.push({ ...finding, where: slot.where });
    const replaced = placeholders.apply(slot.text, findings.filter(replaces));
    if (replaced !== slot.text) (slot.holder as Record<string | number, unknown>)[slot.key] = replaced;
  }
  return located;
}
