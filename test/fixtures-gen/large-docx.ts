/** Large generated inputs: varied sentences, and a real DOCX (the `docx` package) holding ~1.4 MB of them. */
import { makeDocx } from "./make-docx";

/** Varied sentences in one long paragraph. */
export function variedSentences(bytes: number): string {
  const nouns = ["The engineer", "A tenant", "The reviewer", "Our parser", "The old server", "A patient reader"];
  const verbs = ["measured", "rejected", "rewrote", "compared", "archived", "explained"];
  const things = ["the quarterly report", "a broken table", "seven invoices", "the release notes", "an unusual font", "the audit trail"];
  const parts: string[] = [];
  for (let length = 0, i = 0; length < bytes; i++) {
    const sentence = `${nouns[i % 6]} ${verbs[(i * 5) % 6]} ${things[(i * 11) % 6]} on day ${i % 365} of cycle ${Math.floor(i / 365)}.`;
    parts.push(sentence);
    length += sentence.length + 1;
  }
  return parts.join(" ");
}

/** ~1.4 MB of text in 2 KB paragraphs: mammoth reads it for about 1.5 s (issue #17, defect 5). */
export async function largeDocx(textBytes = 1.4 * 1024 * 1024): Promise<Uint8Array> {
  const text = variedSentences(textBytes);
  const paragraphs: { paragraph: string }[] = [];
  for (let at = 0; at < text.length; at += 2048) paragraphs.push({ paragraph: text.slice(at, at + 2048) });
  return makeDocx(paragraphs);
}
