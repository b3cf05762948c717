/**
 * What a model is given to read, as opposed to what a screen shows.
 *
 * - Unicode tag characters (U+E0020–U+E007E) mirror printable ASCII and render as nothing.
 *   Byte-level LLM tokenizers read them, so an instruction spelled in them reaches the provider's
 *   model unseen ("ASCII smuggling"), while MiniLM's normaliser drops them.
 * - Compatibility forms (full-width Ｌａｔｉｎ, mathematical 𝐛𝐨𝐥𝐝 and 𝑖𝑡𝑎𝑙𝑖𝑐, circled ⓛⓔⓣⓣⓔⓡⓢ,
 *   ligatures) read as plain letters to an LLM, but MiniLM's vocabulary has none of them: a
 *   sentence in them is all [UNK], which the firewall cannot judge and in which the cache cannot
 *   tell two questions apart. Unicode's NFKC folds them to the letters they stand for.
 *   The firewall and the semantic cache judge text folded both ways (foldForModels).
 * - A text can hold no token at all for MiniLM: its normaliser (BertNormalizer: clean_text, then
 *   strip_accents) drops control, format and private-use characters (zero-width spaces,
 *   byte-order marks, tag characters), U+FFFD and non-spacing marks; whitespace only separates
 *   (unassigned code points are kept, as [UNK]). The embedder refuses such a text, so every
 *   caller sets it aside first (a test checks this mirror against the tokenizer over every code
 *   point).
 */

const TAG_CHARACTER = /[\u{E0020}-\u{E007E}]/u;
const TAG_CHARACTERS = /[\u{E0020}-\u{E007E}]/gu;
const TAG_OFFSET = 0xe0000;
/** A character the normaliser keeps and that is not whitespace: it becomes at least one token. */
const TOKEN_CHARACTER = /[^\s\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Mn}\uFFFD]/u;

const NON_ASCII = /[^\x00-\x7f]/;

/** Whether the text is plain ASCII: every fold and lookup below has a fast path for it. */
export function isAscii(text: string): boolean {
  return !NON_ASCII.test(text);
}

/**
 * The text as a language model reads it: every Unicode tag character replaced by the ASCII
 * character it mirrors, compatibility forms folded to plain ones (NFKC). ASCII text is returned
 * as it is, without a pass over it.
 */
export function foldForModels(text: string): string {
  if (isAscii(text)) return text;
  const revealed = TAG_CHARACTER.test(text) ? text.replace(TAG_CHARACTERS, (c) => String.fromCharCode(c.codePointAt(0)! - TAG_OFFSET)) : text;
  return revealed.normalize("NFKC");
}

/** Whether the embedding model sees at least one token in the text. */
export function hasTokens(text: string): boolean {
  return TOKEN_CHARACTER.test(text);
}
