import { lemmas, sameLemma } from "./antonyms";
import { NUMBER_WORDS, ONE, ORDINAL_WORDS, UNNARROWING_MODIFIERS } from "./guard-lexicon";
import { DETERMINERS, FUNCTION_WORDS } from "./roles";
import wordnet from "./wordnet-adjectives.json" with { type: "json" };
import wordnetSynonyms from "./wordnet-synonyms.json" with { type: "json" };

/**
 * Narrowed questions. "How do I delete a branch in Git?" and "How do I delete a remote branch in
 * Git?" embed alike (0.90), as do "benefits of tea" / "benefits of green tea" and "the tallest
 * building" / "the tallest wooden building", but the answer to one is wrong for the other: a
 * modifier before a noun picks out a kind of it. A modifier (an adjective, from WordNet, or a
 * participle: "stopped containers", "pushed commit") that only one prompt puts right before a
 * noun both prompts use narrows that noun. A word swapped for another at that place changes it,
 * adjective or not ("green tea" / "black tea", "time complexity" / "space complexity": 0.906).
 * Modifiers that narrow nothing ("some", "own", "good", "best": UNNARROWING_MODIFIERS) and words
 * both prompts use elsewhere are not counted. The object of a preposition swapped for another
 * changes the question too: "… aspirin per day for adults" / "… for children" (0.919). A swap
 * between WordNet synonyms ("for kids" / "for children", "the foundation class" / "the base
 * class") rewords.
 */

const ADJECTIVES = new Set(wordnet.words);
/** Adjectives that are adverbs too ("small", "still"): they narrow nothing, but open a noun phrase before a modifier. */
const ADVERB_ADJECTIVES = new Set(wordnet.adverbsToo);

/**
 * Word → the WordNet synsets (noun or adjective) it shares with another single word. Built on the
 * first swap the scope check weighs (~17–27 ms and ~6.5 MB of heap, once: bench:cache), not at
 * start: only prompts that differ by one swapped word need it.
 */
let synsetsByWord: Map<string, number[]> | undefined;

function synsetsOf(word: string): number[] {
  if (!synsetsByWord) {
    const map = new Map<string, number[]>();
    wordnetSynonyms.groups.forEach((group, id) => {
      for (const member of group.split(" ")) {
        const ids = map.get(member);
        if (ids) ids.push(id);
        else map.set(member, [id]);
      }
    });
    synsetsByWord = map;
  }
  return synsetsByWord.get(word) ?? [];
}

/** Two words that share a WordNet synset in some form: "kids" / "children", "foundation" / "base". A swap between them rewords. */
function synonymous(a: string, b: string): boolean {
  const synsetsOfA = new Set(lemmas(a).flatMap(synsetsOf));
  return lemmas(b).some((form) => synsetsOf(form).some((id) => synsetsOfA.has(id)));
}

/**
 * Most differing content words between two prompts for the check to apply. Paraphrases reword
 * freely ("What are habits of successful people?" / "What personal habits are typically
 * associated with highly successful people?"); a narrowed question is the same question with one
 * word added or swapped (measured: every differing content word counted cost cache-dev 15 points
 * of correct hits; docs/cache.md).
 */
const MAX_DIFFERING_WORDS = 2;

/**
 * `narrowed "remote branch"`: a modifier one prompt puts before a noun both share and the other
 * lacks, at the same place; `changed "time complexity" / "space complexity"`: a word swapped for
 * another there; `changed "adults" / "children"`: the object of a preposition swapped.
 * Undefined if none, or if the prompts differ in more than that.
 */
export function scopeChange(a: string[], b: string[]): string | undefined {
  const aWords = wordsOf(a);
  const bWords = wordsOf(b);
  const differing = a.filter((word) => isContent(word) && !bWords.has(word)).length + b.filter((word) => isContent(word) && !aWords.has(word)).length;
  if (differing === 0 || differing > MAX_DIFFERING_WORDS) return undefined;
  return narrowing(a, aWords, b, bWords) ?? narrowing(b, bWords, a, aWords) ?? swappedObject(a, b);
}

/**
 * The same prompt but for the object of a preposition: "… for adults" / "… for children" (0.919),
 * "a rash on his chest, should I …" / "… on his legs …" (0.909), "as a tourist" / "as a student"
 * (0.926). The content words of both prompts, in order, are the same (by lemma) but at one place,
 * right after a preposition (and an article or possessive) in both, where two words that are not
 * WordNet synonyms stand. A word swapped elsewhere is too often a synonym WordNet does not list
 * ("signs" / "symptoms", "delete" / "remove": measured, docs/cache.md).
 */
function swappedObject(a: string[], b: string[]): string | undefined {
  const aContent = contentIndexes(a);
  const bContent = contentIndexes(b);
  if (aContent.length !== bContent.length) return undefined;
  const differ = aContent.flatMap((at, k) => (sameLemma(a[at]!, b[bContent[k]!]!) ? [] : [k]));
  if (differ.length !== 1) return undefined;
  const [i, j] = [aContent[differ[0]!]!, bContent[differ[0]!]!];
  if (!isObject(a, i) || !isObject(b, j) || synonymous(a[i]!, b[j]!)) return undefined;
  return `changed "${a[i]}" / "${b[j]}"`;
}

function contentIndexes(tokens: string[]): number[] {
  return tokens.flatMap((word, i) => (isContent(word) ? [i] : []));
}

/** Does the word at `i` follow a preposition, directly or after an article or possessive? */
function isObject(tokens: string[], i: number): boolean {
  const opener = DETERMINERS.has(tokens[i - 1] ?? "") ? tokens[i - 2] : tokens[i - 1];
  return opener !== undefined && NOUN_PHRASE_OPENERS.has(opener);
}

/** Built once per prompt (PromptFacts.tokens): the query meets up to two dozen candidates. */
const wordsByTokens = new WeakMap<string[], Words>();

function wordsOf(tokens: string[]): Words {
  let words = wordsByTokens.get(tokens);
  if (!words) {
    words = new Words(tokens);
    wordsByTokens.set(tokens, words);
  }
  return words;
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

function narrowing(tokens: string[], mine: Words, otherTokens: string[], other: Words): string | undefined {
  for (let i = 0; i + 1 < tokens.length; i++) {
    const [before, modifier, noun] = [tokens[i - 1], tokens[i]!, tokens[i + 1]!];
    if (other.has(modifier) || !isNoun(noun, modifier)) continue;
    const place = placeInOther(otherTokens, before, noun);
    if (!place) continue;
    if (place.swapped === undefined) {
      if (isModifier(modifier, before)) return `narrowed "${modifier} ${noun}"`;
    } else if (isContent(place.swapped) && !mine.has(place.swapped) && !synonymous(modifier, place.swapped) && (isModifier(modifier, before) || (isContent(modifier) && opensModifiedNoun(before)))) {
      // A word swapped for another before the same noun: an adjective anywhere ("red wine" /
      // "white wine"), any word inside a noun phrase ("the time complexity" / "the space
      // complexity", "a senior frontend engineer" / "… backend …", "a leaking kitchen faucet" /
      // "… bathroom …"), not a verb before its object ("foods raise blood pressure" / "foods
      // increase …").
      return `changed "${modifier} ${noun}" / "${place.swapped} ${noun}"`;
    }
  }
  return undefined;
}

/**
 * Where the other prompt has `noun` at the same place: right after `before` (the modifier was
 * added: "a branch" for "a remote branch"), or after `before` and one word (a word swapped for
 * it: "of white wine" for "of red wine"). Where `before` is undefined, the noun must open the
 * prompt. The same place is what tells a modifier from a verb: "What made Athens declare war?" /
 * "Why did Athens declare war?". Undefined when the other prompt has the noun elsewhere only.
 */
function placeInOther(tokens: string[], before: string | undefined, noun: string): { swapped?: string } | undefined {
  for (let j = 0; j < tokens.length; j++) {
    if (!sameLemma(tokens[j]!, noun)) continue;
    if (follows(tokens, j, before, 1)) return {};
    if (follows(tokens, j, before, 2)) return { swapped: tokens[j - 1]! };
  }
  return undefined;
}

/** Is `before` the word `distance` places before position `j` (with `before` undefined: does the prompt start there)? */
function follows(tokens: string[], j: number, before: string | undefined, distance: number): boolean {
  const at = j - distance;
  return before === undefined ? at === -1 : at >= 0 && sameLemma(tokens[at]!, before);
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

/** Prepositions (with articles and possessives: opensNounPhrase): after one of them, a word before a noun modifies it ("the time complexity", "of leather jackets"). */
const NOUN_PHRASE_OPENERS = new Set(["of", "in", "for", "on", "with", "about", "at", "by", "from", "as"]);

function opensNounPhrase(word: string | undefined): boolean {
  return word !== undefined && (DETERMINERS.has(word) || NOUN_PHRASE_OPENERS.has(word));
}

/** Besides articles and possessives, what may open a noun phrase whose participle is a modifier: "all stopped containers", "the last pushed commit". */
const PARTICIPLE_OPENERS = new Set(["all", "any", "each", "every", "no", "last", "first", "only"]);

/** "five", "one", "single" ("one" is also a pronoun: "how should one prepare"); the numbers check compares them. */
function isNumberWord(word: string): boolean {
  return word in NUMBER_WORDS || ONE.has(word);
}

/**
 * After an article, possessive or preposition, an adjective ("a junior frontend developer", "a
 * small mountain town") or a participle ("a leaking kitchen faucet"), a word before a noun
 * modifies it; after a noun it is more likely a verb before its object ("foods raise blood pressure").
 */
function opensModifiedNoun(word: string | undefined): boolean {
  return word !== undefined && (opensNounPhrase(word) || isModifier(word) || ADVERB_ADJECTIVES.has(word) || /^[a-z]{3,}ing$/.test(word));
}

/**
 * A past participle of a regular verb ("stopped", "pushed", "merged"): -ed with a stem of three
 * letters or more. It modifies the noun after it only inside a noun phrase (`isModifier`'s
 * `before`); after a subject it is a past tense with its object ("who invented radio").
 */
function isParticiple(word: string): boolean {
  return /^[a-z]{3,}ed$/.test(word);
}
