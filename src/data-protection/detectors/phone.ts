import { findPhoneNumbersInText } from "libphonenumber-js";
import type { Detector } from "../detector";
import type { Detection } from "../model";

/**
 * The most candidates one text has checked (libphonenumber takes ~0.17 ms each here): a 10 MB
 * prompt full of digit runs costs at most about a second; numbers after that are not reported.
 */
export const MAX_PHONE_CANDIDATES = 5000;

/** Runs of digits and the separators phone numbers are written with: only these go to libphonenumber. */
const CANDIDATE = /(?:\+|\(|\b)\d[\d \t().\-\/]{5,20}\d\b/g;

/**
 * Phone numbers as libphonenumber-js validates them: international numbers (+…) for every country,
 * national ones in the North American format (the default region is the US). The library is only
 * asked about digit runs long enough to be a number, a few characters each: over a whole 10 KB text
 * it costs milliseconds, over the candidates microseconds.
 */
export const phoneDetector: Detector = {
  type: "phone",
  detect(text) {
    const found: Detection[] = [];
    let checked = 0;
    for (const match of text.matchAll(CANDIDATE)) {
      if (++checked > MAX_PHONE_CANDIDATES) break;
      const from = Math.max(0, match.index - 1);
      const window = text.slice(from, match.index + match[0].length + 1);
      for (const number of findPhoneNumbersInText(window, "US")) {
        found.push({ type: "phone", start: from + number.startsAt, end: from + number.endsAt });
      }
    }
    return found;
  },
};
