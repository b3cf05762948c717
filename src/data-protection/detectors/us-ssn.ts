import type { Detector } from "../detector";
import type { Detection } from "../model";

const CANDIDATE = /(?<![\d\-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d]|-\d)/g;

/** Numbers the SSA published or used in advertising, never issued to a person. */
const ADVERTISED = new Set(["078-05-1120", "219-09-9999", "123-45-6789"]);

/**
 * US social security numbers written in their grouped form (AAA-GG-SSSS or with spaces), within
 * the SSA's rules: no area 000, 666 or 900–999, no group 00, no serial 0000. Nine bare digits are
 * not taken: too many order and account numbers look the same.
 */
export const usSsnDetector: Detector = {
  type: "us_ssn",
  detect(text) {
    const found: Detection[] = [];
    for (const match of text.matchAll(CANDIDATE)) {
      const [, area, , group, serial] = match as unknown as [string, string, string, string, string];
      const areaNumber = Number(area);
      if (areaNumber === 0 || areaNumber === 666 || areaNumber >= 900 || group === "00" || serial === "0000") continue;
      if (ADVERTISED.has(`${area}-${group}-${serial}`)) continue;
      found.push({ type: "us_ssn", start: match.index, end: match.index + match[0].length });
    }
    return found;
  },
};
