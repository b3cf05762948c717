/** Turning uploaded bytes into text, and telling text from binary. */

const SNIFF_LENGTH = 8192;

/** Binary if the start holds a NUL byte or more than 10% control characters (tab, CR, LF, FF excepted). */
export function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, SNIFF_LENGTH);
  let controls = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 12 && byte !== 13) controls++;
  }
  return controls > sample.length * 0.1;
}

/** UTF-8 (BOM stripped) when valid, else Windows-1252, which every byte sequence decodes as; line ends become \n. */
export function decodeText(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    text = new TextDecoder("windows-1252").decode(bytes);
  }
  return text.replace(/\r\n?/g, "\n");
}
