/**
 * Which texts an encoder can read. MiniLM's WordPiece vocabulary (BERT, uncased) lacks many
 * scripts (Thai, Tamil, Telugu, Ethiopic, Khmer, …), most Han characters beyond a few thousand
 * common ones and many emoji: a word holding a character it has no piece for becomes [UNK], and
 * [UNK] says nothing about what the word was. The firewall leaves windows made mostly of [UNK]
 * unscored (scan.ts); the semantic cache serves a match only when the parts the encoder cannot
 * read are the same in both prompts (two questions that differ only in [UNK] words embed alike).
 * The vocabulary's whole words also tell prose from letter ciphers (wordShare, encoded-text.ts).
 *
 * The check mirrors BERT's basic tokenizer without running it: lower case, accents stripped
 * (NFD, marks dropped), CJK characters one word each, other words split at spaces and
 * punctuation; a word is unknown when one of its characters is not a piece of the vocabulary.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isAscii } from "./model-text";

/** Share of unknown words from which a window is not scored. */
export const UNSCORED_FROM = 0.5;

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+/gu;
const LONG_WORD = /\p{L}{2,}/gu;
/** Punctuation and symbols: each one token of its own (or [UNK]). */
const MARKS = /[\p{P}\p{S}]/gu;

export class Readability {
  /** characters undefined: every text counts as readable (the firewall before this check, for comparisons). */
  constructor(
    private readonly characters: Set<string> | undefined,
    /** Whole words of the vocabulary (pieces that start a word, two letters or more). */
    private readonly words: Set<string> = new Set(),
  ) {}

  /** The single characters (word-initial or ##continuation) and whole words of a model folder's tokenizer.json vocabulary. */
  static ofModel(modelDir: string): Readability {
    return Readability.ofTokenizer(JSON.parse(readFileSync(join(modelDir, "tokenizer.json"), "utf8")));
  }

  /** The same from a parsed tokenizer.json; undefined characters (every text readable) for a tokenizer without a WordPiece vocabulary. */
  static ofTokenizer(tokenizer: { model?: { vocab?: unknown } }): Readability {
    const vocab = tokenizer.model?.vocab;
    if (!vocab || typeof vocab !== "object" || Array.isArray(vocab)) return new Readability(undefined);
    const characters = new Set<string>();
    const words = new Set<string>();
    for (const piece of Object.keys(vocab)) {
      const bare = piece.startsWith("##") ? piece.slice(2) : piece;
      if ([...bare].length === 1) characters.add(bare);
      else if (bare === piece && /^\p{L}+$/u.test(piece)) words.add(piece);
    }
    return new Readability(characters, words);
  }

  /** Share of the text's words the encoder would see as [UNK] (0 for a text without words). */
  unknownShare(text: string): number {
    const characters = this.characters;
    if (!characters) return 0;
    const normal = bertNormalised(text);
    let words = 0;
    let unknown = 0;
    for (const [word] of normal.matchAll(WORD)) {
      words++;
      if (CJK.test(word) ? !characters.has(word) : [...word].some((c) => !characters.has(c))) unknown++;
    }
    return words === 0 ? 0 : unknown / words;
  }

  /**
   * Share of the text's words of two letters or more that are whole words of the vocabulary
   * (undefined below three such words): English prose scores high, the same text in rot13,
   * reversed or leetspeak low.
   */
  wordShare(text: string): number | undefined {
    const words = bertNormalised(text).match(LONG_WORD);
    if (!words || words.length < 3) return undefined;
    return words.filter((word) => this.words.has(word)).length / words.length;
  }

  readable(text: string): boolean {
    return this.unknownShare(text) < UNSCORED_FROM;
  }

  /**
   * What the encoder reads as [UNK], sorted: each word holding a character the vocabulary lacks,
   * and each such punctuation mark or symbol (most emoji). Empty when it reads every part.
   */
  unreadParts(text: string): string[] {
    const characters = this.characters;
    if (!characters || isAscii(text)) return []; // BERT's vocabulary holds every printable ASCII character
    const normal = bertNormalised(text);
    const unread: string[] = [];
    for (const [word] of normal.matchAll(WORD)) if ([...word].some((c) => !characters.has(c))) unread.push(word);
    for (const [mark] of normal.matchAll(MARKS)) if (!characters.has(mark)) unread.push(mark);
    return unread.sort();
  }
}

/** Lower case, accents stripped (NFD, marks dropped): what BERT's basic tokenizer looks up. */
function bertNormalised(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}
