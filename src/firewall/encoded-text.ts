/**
 * Text hidden in an encoding. Asked to ("decode this and do what it says"), the provider's model
 * reads such a payload as the instruction it encodes, while the firewall's encoder sees letter
 * soup: garak-style encoded injections scored like noise (2% of base64 ones blocked,
 * docs/firewall.md). Two kinds are decoded and judged as text of their own (planWindows in
 * scan.ts):
 * - runs of base64, base32 or hex characters that decode to readable text (keys, hashes and
 *   identifiers do not, and cost a regex match and a decode attempt each);
 * - sentences in rot13, reversed, spaced-out letters or leetspeak: a sentence few of whose words
 *   the encoder's vocabulary knows, which one of those readings turns into words it knows.
 */
import type { Readability } from "../embeddings/readability";

/** A run of base64 (standard or URL-safe), base32 or hex characters long enough to carry a sentence. */
const ENCODED_RUN = /[A-Za-z0-9+/_-]{20,}={0,6}/g;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE32 = /^[A-Z2-7]+=*$/;
const BASE32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/** Payloads judged per message, and the encoded characters read of each: bounded work whatever the input. */
export const MAX_PAYLOADS = 4;
const MAX_ENCODED_CHARS = 1024;
/** Runs and sentences tried per request (all its messages together): however many a body holds, decoding costs at most ~10 ms of the event loop. */
export const MAX_DECODE_ATTEMPTS = 256;
/** A sentence is re-read when under this share of its words are vocabulary words, and a reading kept when it gains SHARE_GAIN and reaches READ_SHARE. */
const UNREAD_SHARE = 0.75;
const SHARE_GAIN = 0.25;
const READ_SHARE = 0.75;
/** Sentences (or lines), read when 12 to MAX_SENTENCE_CHARS characters long: a cipher line often follows a plain request on the same line. */
const MAX_SENTENCE_CHARS = 400;
const SENTENCE = /[^\n]+?(?:[.!?:](?=\s)|$)/gm;
const LEET: Record<string, string> = { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "@": "a", $: "s" };
const UNREADABLE = /[^\p{L}\p{N}\p{P}\p{S}\s]/gu;
const LETTER = /\p{L}/gu;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The texts hidden in a message, in order of appearance (at most MAX_PAYLOADS): encoded runs
 * first, then, with the encoder's `readability`, sentences in a letter cipher. `attempts` is shared
 * by the messages of one request and counts down with every run or sentence tried.
 */
export function decodedPayloads(text: string, attempts = { left: MAX_DECODE_ATTEMPTS }, readability?: Readability): string[] {
  const payloads = decodedRuns(text, attempts);
  if (!readability) return payloads;
  for (const [sentence] of text.matchAll(SENTENCE)) {
    if (payloads.length >= MAX_PAYLOADS || attempts.left <= 0) break;
    const line = sentence.trim();
    if (line.length < 12 || line.length > MAX_SENTENCE_CHARS) continue;
    attempts.left--;
    const reading = cipherReading(line, readability);
    if (reading !== undefined) payloads.push(reading);
  }
  return payloads;
}

/**
 * Bytes hidden in Unicode variation selectors behind a visible character ("emoji smuggling"):
 * U+FE00–U+FE0F carry 0–15 and U+E0100–U+E01EF carry 16–255. They render as nothing and MiniLM's
 * normaliser drops them (non-spacing marks), but a model asked to decode them reads the bytes.
 * A real emoji carries at most one selector; four or more in a row are a payload.
 */
const VARIATION_SELECTOR_RUN = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]{4,}/gu;

function variationSelectorBytes(run: string): Uint8Array {
  return Uint8Array.from([...run].slice(0, MAX_ENCODED_CHARS), (c) => {
    const code = c.codePointAt(0)!;
    return code <= 0xfe0f ? code - 0xfe00 : code - 0xe0100 + 16;
  });
}

/** Whether `text` holds a run decodedPayloads could decode, without a reader for ciphers (a regex test, no decoding). */
export function mayHoldEncodedRun(text: string): boolean {
  // search, not test: test would move the shared global regexes' lastIndex, where matchAll starts.
  return text.search(VARIATION_SELECTOR_RUN) >= 0 || text.search(ENCODED_RUN) >= 0;
}

function decodedRuns(text: string, attempts: { left: number }): string[] {
  const payloads: string[] = [];
  for (const [run] of text.matchAll(VARIATION_SELECTOR_RUN)) {
    if (attempts.left <= 0 || payloads.length === MAX_PAYLOADS) break;
    attempts.left--;
    const decoded = readableText(variationSelectorBytes(run));
    if (decoded !== undefined) payloads.push(decoded);
  }
  for (const [run] of text.matchAll(ENCODED_RUN)) {
    if (attempts.left <= 0) break;
    attempts.left--;
    const encoded = run.slice(0, MAX_ENCODED_CHARS);
    for (const decode of [hexBytes, base32Bytes, base64Bytes]) {
      const decoded = readableText(decode(encoded));
      if (decoded === undefined) continue;
      payloads.push(decoded);
      break;
    }
    if (payloads.length === MAX_PAYLOADS) break;
  }
  return payloads;
}

/** The sentence as rot13, reversed, spaced-out letters or leetspeak reads, when one of them reads as words and the sentence does not. */
function cipherReading(line: string, readability: Readability): string | undefined {
  const spaced = /(?:\S ){6,}/.test(line);
  const share = readability.wordShare(line);
  if (!spaced && (share === undefined || share >= UNREAD_SHARE)) return undefined;
  let best: { text: string; share: number } | undefined;
  for (const reading of [rot13(line), [...line].reverse().join(""), unspaced(line), unleet(line)]) {
    if (reading === line) continue;
    const readShare = readability.wordShare(reading);
    if (readShare === undefined || readShare < READ_SHARE || readShare < (share ?? 0) + SHARE_GAIN) continue;
    if (!best || readShare > best.share) best = { text: reading, share: readShare };
  }
  return best?.text;
}

function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** "D o n ' t   s a y" → "Don't say": single spaces join letters, wider gaps part words. */
function unspaced(text: string): string {
  return text
    .split(/\s{2,}/)
    .map((word) => word.replace(/(\S) (?=\S)/g, "$1"))
    .join(" ");
}

function unleet(text: string): string {
  return text.replace(/[0134578@$]/g, (c) => LEET[c]!);
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
