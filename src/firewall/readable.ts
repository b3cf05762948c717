/**
 * Which texts the firewall's encoder can read. Its WordPiece vocabulary (BERT, uncased) lacks
 * many scripts (Thai, Tamil, Telugu, Ethiopic, Khmer, …) and most Han characters beyond a few
 * thousand common ones: a word holding a character it has no piece for becomes [UNK]. A window
 * made mostly of [UNK] embeds to a vector that says nothing about what it asks, so scoring it
 * would be a guess; such windows are left unscored and the verdict says so (scan.ts).
 *
 * The check mirrors BERT's basic tokenizer without running it: lower case, accents stripped
 * (NFD, marks dropped), CJK characters one word each, other words split at spaces and
 * punctuation; a word is unknown when one of its characters is not a piece of the vocabulary.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Share of unknown words from which a window is not scored. */
export const UNSCORED_FROM = 0.5;

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+/gu;

export class Readability {
  /** characters undefined: every text counts as readable (the firewall before this check, for comparisons). */
  constructor(private readonly characters: Set<string> | undefined) {}

  /** The single characters (word-initial or ##continuation) of a model folder's tokenizer.json vocabulary. */
  static ofModel(modelDir: string): Readability {
    const tokenizer = JSON.parse(readFileSync(join(modelDir, "tokenizer.json"), "utf8")) as { model: { vocab: Record<string, number> } };
    const characters = new Set<string>();
    for (const piece of Object.keys(tokenizer.model.vocab)) {
      const bare = piece.startsWith("##") ? piece.slice(2) : piece;
      if ([...bare].length === 1) characters.add(bare);
    }
    return new Readability(characters);
  }

  /** Share of the text's words the encoder would see as [UNK] (0 for a text without words). */
  unknownShare(text: string): number {
    const characters = this.characters;
    if (!characters) return 0;
    const normal = text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
    let words = 0;
    let unknown = 0;
    for (const [word] of normal.matchAll(WORD)) {
      words++;
      if (CJK.test(word) ? !characters.has(word) : [...word].some((c) => !characters.has(c))) unknown++;
    }
    return words === 0 ? 0 : unknown / words;
  }

  readable(text: string): boolean {
    return this.unknownShare(text) < UNSCORED_FROM;
  }
}
