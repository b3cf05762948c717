import type { Detector } from "../detector";
import type { Detection } from "../model";

/** 13 to 19 digits, optionally in groups separated by one space or dash. */
const CANDIDATE = /(?<![\d.\-])\d(?:[ \-]?\d){12,18}(?![\d.]|-\d)/g;

/** Issuer prefixes and the lengths their cards have (ISO/IEC 7812 ranges of the major networks). */
const NETWORKS: { prefix: RegExp; lengths: number[] }[] = [
  { prefix: /^4/, lengths: [13, 16, 19] }, // Visa
  { prefix: /^(5[1-5]|2(2[2-9][1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720))/, lengths: [16] }, // Mastercard
  { prefix: /^3[47]/, lengths: [15] }, // American Express
  { prefix: /^(6011|65|64[4-9])/, lengths: [16, 19] }, // Discover
  { prefix: /^35(2[89]|[3-8]\d)/, lengths: [16, 19] }, // JCB
  { prefix: /^3(0[0-5]|[689])/, lengths: [14, 16, 19] }, // Diners Club
  { prefix: /^62/, lengths: [16, 17, 18, 19] }, // UnionPay
  { prefix: /^(5018|5020|5038|5893|6304|6759|676[1-3])/, lengths: [12, 13, 14, 15, 16, 17, 18, 19] }, // Maestro
];

/**
 * The test numbers card networks and payment providers publish for documentation: text that
 * quotes them is about testing, not a customer's card.
 */
const PUBLISHED_TEST_NUMBERS = new Set([
  "4242424242424242", "4111111111111111", "4012888888881881", "4000056655665556", "4000000000000002", "4000000000009995",
  "5555555555554444", "5105105105105100", "5200828282828210", "2223003122003222",
  "378282246310005", "371449635398431", "6011111111111117", "6011000990139424", "3530111333300000", "3566002020360505",
  "30569309025904", "38520000023237", "6200000000000005",
]);

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Payment card numbers: a network's prefix and length, a valid Luhn check digit, grouped consistently. */
export const creditCardDetector: Detector = {
  type: "credit_card",
  detect(text) {
    const found: Detection[] = [];
    for (const match of text.matchAll(CANDIDATE)) {
      const raw = match[0];
      const separators = new Set(raw.replace(/\d/g, ""));
      if (separators.size > 1) continue;
      const digits = raw.replace(/\D/g, "");
      if (!NETWORKS.some((n) => n.prefix.test(digits) && n.lengths.includes(digits.length))) continue;
      if (!luhnValid(digits) || PUBLISHED_TEST_NUMBERS.has(digits)) continue;
      found.push({ type: "credit_card", start: match.index, end: match.index + raw.length });
    }
    return found;
  },
};
