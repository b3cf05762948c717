import { electronicFormatIBAN, isValidIBAN } from "ibantools";
import type { Detector } from "../detector";
import type { Detection } from "../model";

/** A country code, two check digits, then 11 to 30 letters or digits, optionally in groups of four. */
const CANDIDATE = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4}){3,8}\b/g;

/** IBANs that ibantools validates (country format and the mod-97 check digits). */
export const ibanDetector: Detector = {
  type: "iban",
  detect(text) {
    const found: Detection[] = [];
    for (const match of text.matchAll(CANDIDATE)) {
      let raw = match[0];
      // The grouped form may run into a following word ("… 00 Bank"): drop groups until it validates.
      while (raw.length >= 15) {
        const electronic = electronicFormatIBAN(raw);
        if (electronic && isValidIBAN(electronic)) {
          found.push({ type: "iban", start: match.index, end: match.index + raw.length });
          break;
        }
        const cut = raw.lastIndexOf(" ");
        if (cut === -1) break;
        raw = raw.slice(0, cut);
      }
    }
    return found;
  },
};
