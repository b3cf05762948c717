import { findPhoneNumbersInText } from "libphonenumber-js";
import type { Detector } from "../detector";
import type { Detection } from "../model";

/**
 * The most candidates one text has checked (libphonenumber takes ~0.17 ms each here): a 10 MB
 * prompt full of digit runs costs at most about a second; numbers after that are not reported.
 */
export const MAX_PHONE_CANDIDATES = 5000;

const NOT_A_NUMBER = /\d{4}-\d{2}-\d{2}|\d{1,2}[.\/]\d{1,2}[.\/]\d{2,4}|\d+\.\d+\.\d+\.\d+/;

const NANP_WRITTEN = /^(?:1[ .\-])?(?:\(\d{3}\)\s?|\d{3}[ .\-])\d{3}[ .\-]\d{4}$/;

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
        // Dates, times and dotted numbers (addresses, versions) that happen to validate as a number.
        const written = window.slice(number.startsAt, number.endsAt);
        if (NOT_A_NUMBER.test(written)) continue;
        // Without "+", only the North American grouping counts: bare digit runs are order and parcel numbers.
        if (!written.startsWith("+") && !NANP_WRITTEN.test(written)) continue;
        found.push({ type: "phone", start: from + number.startsAt, end: from + number.endsAt });
      }
    }
    return found;
  },
};
