import type { Finding } from "./model";

/**
 * The typed placeholders of one request ("[EMAIL_1]", "[SECRET_2]"): the same value gets the same
 * placeholder everywhere in the request, numbered per type in order of appearance, so the same
 * request always reads the same upstream (and keys the cache the same way). Values of masked
 * findings are remembered to be restored in the answer; redacted ones are not.
 */
export class Placeholders {
  readonly #byValue = new Map<string, string>();
  readonly #counts = new Map<string, number>();
  /** placeholder → original value, for masked findings only. */
  readonly masked = new Map<string, string>();

  placeholder(type: string, value: string, restore: boolean): string {
    const key = `${type}\u0000${value}`;
    let placeholder = this.#byValue.get(key);
    if (!placeholder) {
      const n = (this.#counts.get(type) ?? 0) + 1;
      this.#counts.set(type, n);
      placeholder = `[${type.toUpperCase()}_${n}]`;
      this.#byValue.set(key, placeholder);
    }
    if (restore) this.masked.set(placeholder, value);
    return placeholder;
  }

  /** The text with the given findings replaced by their placeholders (only masked ones are restorable). */
  apply(text: string, findings: Finding[]): string {
    let out = "";
    let at = 0;
    for (const finding of findings) {
      out += text.slice(at, finding.start) + this.placeholder(finding.type, text.slice(finding.start, finding.end), finding.action === "mask");
      at = finding.end;
    }
    return at === 0 ? text : out + text.slice(at);
  }
}

/** Matches a whole placeholder of this module's shape. */
export const PLACEHOLDER = /\[[A-Z][A-Z0-9_]*_\d+\]/g;
/** The longest placeholder: a 40-character custom name, "_", a number. */
export const MAX_PLACEHOLDER_LENGTH = 2 + 40 + 1 + 6;
