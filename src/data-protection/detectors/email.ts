import type { Detector } from "../detector";
import type { Detection } from "../model";

const LOCAL_CHAR = /[A-Za-z0-9._%+\-]/;
const DOMAIN_CHAR = /[A-Za-z0-9.\-]/;
const LOCAL_PART = /^[A-Za-z0-9%+\-_]+(?:\.[A-Za-z0-9%+\-_]+)*$/;
const DOMAIN = /^(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}$/;

/**
 * E-mail addresses. Found from each "@" outwards rather than with one regex over the text: a
 * regex that starts at every letter of a long run without "@" costs quadratic time.
 */
export const emailDetector: Detector = {
  type: "email",
  detect(text) {
    const found: Detection[] = [];
    let at = text.indexOf("@");
    while (at !== -1) {
      let start = at;
      while (start > 0 && at - start < 64 && LOCAL_CHAR.test(text[start - 1]!)) start--;
      let end = at + 1;
      while (end < text.length && end - at <= 253 && DOMAIN_CHAR.test(text[end]!)) end++;
      while (end > at + 1 && (text[end - 1] === "." || text[end - 1] === "-")) end--;
      const local = text.slice(start, at);
      // A basic-auth URL (scheme://user:pass@host) is a secret's business, not an address.
      const inUrl = text[start - 1] === ":" && /\/\/[^\s/]*$/.test(text.slice(Math.max(0, start - 100), start));
      if (!inUrl && LOCAL_PART.test(local) && DOMAIN.test(text.slice(at + 1, end))) found.push({ type: "email", start, end });
      at = text.indexOf("@", Math.max(end, at + 1));
    }
    return found;
  },
};
