/**
 * Text hidden in base64, base32 or hex. Asked to ("decode this and do what it says"), the
 * provider's model reads such a payload as the instruction it encodes, while the firewall's
 * encoder sees letter soup: garak-style encoded injections scored like noise (2% of base64 ones
 * blocked, docs/firewall.md). The payloads found in a message are decoded and judged as text of
 * their own (planWindows in scan.ts); a run that does not decode to readable text is ignored, so
 * keys, hashes and identifiers cost a regex match and a decode attempt each.
 */

/** A run of base64 (standard or URL-safe), base32 or hex characters long enough to carry a sentence. */
const ENCODED_RUN = /[A-Za-z0-9+/_-]{20,}={0,6}/g;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE32 = /^[A-Z2-7]+=*$/;
const BASE32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/** Payloads judged per message, and the encoded characters read of each: bounded work whatever the input. */
export const MAX_PAYLOADS = 4;
const MAX_ENCODED_CHARS = 1024;
/** Runs tried per request (all its messages together): however many runs a body holds, decoding costs at most ~10 ms of the event loop. */
export const MAX_DECODE_ATTEMPTS = 256;
const UNREADABLE = /[^\p{L}\p{N}\p{P}\p{S}\s]/gu;
const LETTER = /\p{L}/gu;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The texts hidden in a message's encoded runs, in order of appearance (at most MAX_PAYLOADS).
 * `attempts` is shared by the messages of one request and counts down with every run tried.
 */
export function decodedPayloads(text: string, attempts = { left: MAX_DECODE_ATTEMPTS }): string[] {
  const payloads: string[] = [];
  for (const [run] of text.matchAll(ENCODED_RUN)) {
    if (attempts.left <= 0) break;
    attempts.left--;
    const encoded = run.slice(0, MAX_ENCODED_CHARS);
    const decoded = [hexBytes, base32Bytes, base64Bytes].map((decode) => readableText(decode(encoded))).find((t) => t !== undefined);
    if (decoded !== undefined) payloads.push(decoded);
    if (payloads.length === MAX_PAYLOADS) break;
  }
  return payloads;
}

function hexBytes(run: string): Uint8Array | undefined {
  return HEX.test(run) ? Buffer.from(run, "hex") : undefined;
}

/** RFC 4648 base32 (upper case, padding optional): 5 bits per character. */
function base32Bytes(run: string): Uint8Array | undefined {
  if (!BASE32.test(run)) return undefined;
  const digits = run.replace(/=+$/, "");
  const bytes = new Uint8Array(Math.floor((digits.length * 5) / 8));
  let bits = 0;
  let value = 0;
  let at = 0;
  for (const digit of digits) {
    value = (value << 5) | BASE32_ALPHABET.indexOf(digit);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = (value >>> bits) & 0xff;
    }
  }
  return bytes;
}

function base64Bytes(run: string): Uint8Array | undefined {
  return Buffer.from(run, "base64");
}

/** The bytes as text when they are UTF-8 that reads as words: letters, at least one space, almost nothing unprintable. */
function readableText(bytes: Uint8Array | undefined): string | undefined {
  if (!bytes || bytes.length < 12) return undefined;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  if (!/\s/.test(text)) return undefined;
  const unreadable = text.match(UNREADABLE)?.length ?? 0;
  const letters = text.match(LETTER)?.length ?? 0;
  return letters >= 8 && unreadable <= 0.05 * text.length ? text : undefined;
}
