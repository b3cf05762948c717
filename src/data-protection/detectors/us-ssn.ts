import type { Detector } from "../detector";
import type { Detection } from "../model";

/** AAA-GG-SSSS or AAA GG SSSS (the same separator twice): taken without any word around it. */
const GROUPED = /(?<![\d\-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d]|-\d)/g;
/** AAA.GG.SSSS or nine digits in a row: only after a word that names the number (SSN_CUE). */
const DOTTED_OR_BARE = /(?<![\d\-.])(\d{3})(\.?)(\d{2})\2(\d{4})(?![\d]|[-.]\d)/g;
/**
 * Words that name a social security number right before it (what Microsoft Presidio's US SSN
 * recognizer takes as context: "social", "security", "ssn", "ss#"), in English and US Spanish.
 */
const SSN_CUE = /(?:(?<![a-z])ssns?(?![a-z])|(?<![a-z])ssn?#|social\s+security(?:\s+(?:number|no\.?|#))?|seguro\s+social)[^\d\n]{0,24}$/i;
const CUE_WINDOW_CHARS = 48;

/** Numbers the SSA published or used in advertising, never issued to a person. */
const ADVERTISED = new Set(["078051120", "219099999", "123456789"]);

/** Within the SSA's rules: no area 000, 666 or 900–999, no group 00, no serial 0000, none advertised. */
function couldBeIssued(area: string, group: string, serial: string): boolean {
  const areaNumber = Number(area);
  if (areaNumber === 0 || areaNumber === 666 || areaNumber >= 900 || group === "00" || serial === "0000") return false;
  return !ADVERTISED.has(`${area}${group}${serial}`);
}

/**
 * US social security numbers: in their grouped form (AAA-GG-SSSS or with spaces) anywhere; with
 * dots or as nine bare digits only right after a word that names one ("SSN: 536228143"), since
 * order and account numbers look the same. Within the SSA's rules either way.
 */
export const usSsnDetector: Detector = {
  type: "us_ssn",
  detect(text) {
    const found: Detection[] = [];
    for (const match of text.matchAll(GROUPED)) {
      const [, area, , group, serial] = match as unknown as [string, string, string, string, string];
      if (couldBeIssued(area, group, serial)) found.push({ type: "us_ssn", start: match.index, end: match.index + match[0].length });
    }
    for (const match of text.matchAll(DOTTED_OR_BARE)) {
      const [, area, , group, serial] = match as unknown as [string, string, string, string, string];
      if (!couldBeIssued(area, group, serial) || !SSN_CUE.test(text.slice(Math.max(0, match.index - CUE_WINDOW_CHARS), match.index))) continue;
      found.push({ type: "us_ssn", start: match.index, end: match.index + match[0].length });
    }
    return found;
  },
};
