import { lemmas } from "./antonyms";
import { NUMBER_WORDS, ONE, ORDINAL_WORDS, UNNARROWING_MODIFIERS } from "./guard-lexicon";
import { DETERMINERS, FUNCTION_WORDS } from "./roles";
import wordnet from "./wordnet-adjectives.json" with { type: "json" };

/**
 * Narrowed questions. "How do I delete a branch in Git?" and "How do I delete a remote branch in
 * Git?" embed alike (0.90), as do "benefits of tea" / "benefits of green tea" and "the tallest
 * building" / "the tallest wooden building", but the answer to one is wrong for the other: a
 * modifier before a noun picks out a kind of it. A modifier (an adjective, from WordNet, or a
 * participle: "stopped containers", "pushed commit") that only one prompt puts right before a
 * noun both prompts use narrows that noun, or changes it when the other prompt has another
 * modifier there ("green tea" / "black tea"). Modifiers that narrow nothing ("some", "own",
 * "good", "best": UNNARROWING_MODIFIERS) and words both prompts use elsewhere are not counted.
 */

const ADJECTIVES = new Set(wordnet.words);

/**
 * Most differing content words between two prompts for the check to apply. Paraphrases reword
 * freely ("What are habits of successful people?" / "What personal habits are typically
 * associated with highly successful people?"); a narrowed question is the same question with one
 * word added or swapped (measured: every differing content word counted cost cache-dev 15 points
 * of correct hits; docs/cache.md).
 */
const MAX_DIFFERING_WORDS = 2;

/**
 * "remote branch": the modifier one prompt puts before a noun both share and the other lacks, at
 * the same place (after the same word, or in place of another modifier); undefined if none, or if
 * the prompts differ in more than that.
 */
export function narrowedNoun(a: string[], b: string[]): string | undefined {
  const aWords = new Words(a);
  const bWords = new Words(b);
  const differing = a.filter((word) => isContent(word) && !bWords.has(word)).length + b.filter((word) => isContent(word) && !aWords.has(word)).length;
  if (differing === 0 || differing > MAX_DIFFERING_WORDS) return undefined;
  return narrowing(a, b, bWords) ?? narrowing(b, a, aWords);
}

/** A prompt's words by lemma, and by root: "agriculture" / "agricultural", "instinct" / "instinctive" are one word here. */
class Words {
  readonly #forms: Set<string>;
  readonly #roots: string[];

  constructor(tokens: string[]) {
    this.#forms = new Set(tokens.flatMap(lemmas));
    this.#roots = tokens.filter((word) => word.length >= MIN_ROOT);
  }

  has(word: string): boolean {
    return lemmas(word).some((form) => this.#forms.has(form)) || (word.length >= MIN_ROOT && this.#roots.some((other) => sameRoot(word, other)));
  }
}

/** Shortest word compared by root, and the root's share of the shorter word. */
const MIN_ROOT = 5;
const ROOT_SHARE = 0.8;

function sameRoot(a: string, b: string): boolean {
  let common = 0;
  while (common < a.length && a[common] === b[common]) common++;
  return common >= MIN_ROOT && common >= ROOT_SHARE * Math.min(a.length, b.length);
}

function isContent(word: string): boolean {
  return !FUNCTION_WORDS.has(word) && !UNNARROWING_MODIFIERS.has(word) && !isNumberWord(word) && !/^\d/.test(word);
}

function narrowing(tokens: string[], otherTokens: string[], other: Words): string | undefined {
  for (let i = 0; i + 1 < tokens.length; i++) {
    const [before, modifier, noun] = [tokens[i - 1], tokens[i]!, tokens[i + 1]!];
    if (!isModifier(modifier, before) || other.has(modifier) || !isNoun(noun, modifier) || !samePlace(otherTokens, before, noun)) continue;
    return `${modifier} ${noun}`;
  }
  return undefined;
}

/**
 * Has the other prompt `noun` right after `before` ("a branch" for "a remote branch"), or after
 * `before` and one word (another modifier: "of red wine" for "of white wine")? Where `before` is
 * undefined, the noun must open the prompt. The same place is what tells a modifier from a verb:
 * "What made Athens declare war?" / "Why did Athens declare war?".
 */
function samePlace(tokens: string[], before: string | undefined, noun: string): boolean {
  return tokens.some((word, j) => {
    if (!sameWord(word, noun)) return false;
    if (before === undefined) return j <= 1;
    return (j >= 1 && sameWord(tokens[j - 1]!, before)) || (j >= 2 && sameWord(tokens[j - 2]!, before));
  });
}

function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const forms = lemmas(b);
  return lemmas(a).some((form) => forms.includes(form));
}

/** What a modifier may narrow: a content word that is not itself a modifier or an adjective ("considered better" narrows nothing). */
function isNoun(word: string, before: string): boolean {
  return isContent(word) && !ADJECTIVES.has(word) && !isModifier(word, before);
}

function isModifier(word: string, before?: string): boolean {
  // Number words and ordinals are compared by the numbers and opposites checks ("5 ideas" / "five ideas" agree).
  if (FUNCTION_WORDS.has(word) || UNNARROWING_MODIFIERS.has(word) || isNumberWord(word) || word in ORDINAL_WORDS) return false;
  return ADJECTIVES.has(word) || (before !== undefined && isParticiple(word) && (DETERMINERS.has(before) || PARTICIPLE_OPENERS.has(before) || isModifier(before)));
}

/** Besides articles and possessives, what may open a noun phrase whose participle is a modifier: "all stopped containers", "the last pushed commit". */
const PARTICIPLE_OPENERS = new Set(["all", "any", "each", "every", "no", "last", "first", "only"]);

/** "five", "one", "single" ("one" is also a pronoun: "how should one prepare"); the numbers check compares them. */
function isNumberWord(word: string): boolean {
  return word in NUMBER_WORDS || ONE.has(word);
}

/**
 * A past participle of a regular verb ("stopped", "pushed", "merged"): -ed with a stem of three
 * letters or more. It modifies the noun after it only inside a noun phrase (`isModifier`'s
 * `before`); after a subject it is a past tense with its object ("who invented radio").
 */
function isParticiple(word: string): boolean {
  return /^[a-z]{3,}ed$/.test(word);
}
