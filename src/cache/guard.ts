import {
  AXES,
  BOUND_ONLY_UNITS,
  NEGATIONS,
  NOT_NAMES,
  NUMBER_SCALES,
  NUMBER_WORDS,
  ONE,
  ORDINAL_WORDS,
  QUANTITY_WORDS,
  QUESTION_WORDS,
  TEMPORAL_WORDS,
  UNITS,
  WORD_UNITS,
} from "./guard-lexicon";
import type { Readability } from "../embeddings/readability";
import { firstOpposition, indexTerms, type TermIndex } from "./antonyms";
import { roleSwap, roleTokens } from "./roles";
import { scopeChange } from "./scope";

/**
 * The precision guard. Embedding similarity says two prompts are about the same thing; it is
 * nearly blind to the few tokens that decide the answer ("capital of France" / "of Germany",
 * "over 96" / "over 94", "is" / "is not", "5 km in miles" / "5 miles in km"). A semantic hit is
 * served only when these answer-determining facts of the two prompts agree:
 *
 * - numbers (digits, number words, ordinals, 30k = 30,000) as a multiset, and the unit bound to
 *   each number; units and currencies as a set;
 * - names: capitalised words not at a sentence start, acronyms, mixed-case words, each found in
 *   the other prompt (case-insensitive, India ~ Indian);
 * - code identifiers (snake_case, dotted.names, calls(), paths) and quoted strings, each found
 *   verbatim in the other prompt;
 * - negation (present in both or in neither);
 * - dates and times of day (months, weekdays, today/tomorrow, morning/night, seasons) as a set;
 * - opposites: when both prompts use an axis (best/worst, more/less, before/after, first/third,
 *   a sentence opening with who/when/where/why/how many, …) they must use the same pole;
 * - antonyms: no word of one prompt (missing from the other) is the opposite of a word only the
 *   other has: WordNet's antonyms, particles (on/off), affixes (lock/unlock, sugary/sugar-free)
 *   (antonyms.ts);
 * - roles: the shared words keep their roles (from/to, than, "A beat B") (roles.ts);
 * - scope: no modifier that only one prompt has stands before a noun both use ("a branch" /
 *   "a remote branch"), and no word there is swapped for another ("green tea" / "black tea",
 *   "the time complexity" / "the space complexity") (scope.ts);
 * - unread parts: the words and symbols the encoder sees only as [UNK] (Thai and Ethiopic words,
 *   rare Han characters, most emoji) are the same in both. Similarity cannot see them: two
 *   different Thai questions embed to the same vector.
 */
export type PromptFacts = {
  /** Lower-case word forms (letters and digits), for "found in the other prompt". */
  words: Set<string>;
  /** Lower-case text with collapsed whitespace, for verbatim containment. */
  flat: string;
  numbers: string[];
  /** Arithmetic and comparison operators between operands ("7 > 5", "a+b"), sorted. */
  operators: string[];
  /** Number → units written next to it. */
  boundUnits: Map<string, Set<string>>;
  units: Set<string>;
  names: string[];
  identifiers: string[];
  quoted: string[];
  negated: boolean;
  temporal: Set<string>;
  /** Axis (AXES, "ordinal", "asks") → the poles used. */
  poles: Map<string, Set<number>>;
  /** Lower-case words in order, hyphenated compounds kept whole ("sugar-free"), for antonyms and roles. */
  tokens: string[];
  /** What the encoder reads as [UNK], sorted (Readability.unreadParts); empty when no readability was given. */
  unread: string[];
};

/** The verifier's checks: the one that failed names a rejection (a metrics label). */
export const GUARD_CHECKS = ["unread", "negation", "numbers", "units", "date_time", "names", "identifiers", "quotes", "opposites", "roles", "scope"] as const;
export type GuardCheck = (typeof GUARD_CHECKS)[number];

/** A failed check says which one (`check`) and, for the evidence and logs, what differed (`reason`). */
export type GuardVerdict = { pass: true } | { pass: false; check: GuardCheck; reason: string };

type Token = { raw: string; lower: string; sentenceStart: boolean };

/** Every AXES term (single words) → the axes and poles it belongs to: one lookup per word of a prompt. */
const AXIS_POLES_OF = new Map<string, [axis: string, pole: number][]>();
for (const [axis, axisPoles] of Object.entries(AXES)) {
  axisPoles.forEach((pole, index) => {
    for (const term of pole) AXIS_POLES_OF.set(term, [...(AXIS_POLES_OF.get(term) ?? []), [axis, index]]);
  });
}

const CURRENCY_UNITS = new Set(["usd", "eur", "gbp", "inr", "jpy", "cny", "btc"]);
const OPENERS = /^["'“”‘’([{<*]+/;
const NUMBER = /^(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?([a-z%°$€£¥₹/]*)$/;
/**
 * An operator between two operands: "Is 7 > 5?" and "Is 7 < 5?" embed at 0.91 with the same
 * numbers. "-" and "/" count only between digits or standing alone ("a - b"), not in
 * "well-known" or "and/or".
 */
const OPERATOR = /(?<=[\p{L}\p{N})]\s*)(?:<=|>=|!=|==|[<>=≤≥≠×÷+*^])(?=\s*[\p{L}\p{N}(])|(?<=\d\s*)[-/−](?=\s*\d)|(?<=\s)[-/−](?=\s)/gu;

/** `readability`: the embedding model's, so the parts it cannot read are compared (the server always gives it). */
export function promptFacts(text: string, readability?: Readability): PromptFacts {
  const normalised = text.normalize("NFKC").replace(/[’‘]/g, "'").replace(/[“”]/g, '"');
  const flat = normalised.toLowerCase().replace(/\s+/g, " ").trim();
  const tokens = tokenize(normalised);
  const shouting = normalised === normalised.toUpperCase();

  const words = new Set<string>();
  const numbers: string[] = [];
  const boundUnits = new Map<string, Set<string>>();
  const units = new Set<string>();
  const names: string[] = [];
  const identifiers: string[] = [];
  let pendingCurrency: string | undefined;

  const poles = new Map<string, Set<number>>();
  const bind = (value: string, unit: string) => {
    const set = boundUnits.get(value) ?? new Set<string>();
    set.add(unit);
    boundUnits.set(value, set);
  };

  tokens.forEach((token, i) => {
    if (token.sentenceStart) {
      const asked = QUESTION_WORDS.findIndex((pole) => pole.includes(token.lower) || pole.includes(`${token.lower} ${tokens[i + 1]?.lower}`));
      if (asked >= 0) addPole(poles, "asks", asked);
    }
    for (const word of token.lower.replace(/'s$/, "").match(/[\p{L}\p{N}]+/gu) ?? []) words.add(word);
    const next = tokens[i + 1]?.lower;
    const nextUnit = next !== undefined ? UNITS[next] : undefined;

    const parsed = parseNumber(token.lower);
    if (parsed) {
      for (const value of parsed.values) {
        numbers.push(value);
        const unit = parsed.unit ?? nextUnit ?? pendingCurrency;
        if (unit) {
          bind(value, unit);
          units.add(unit);
        }
      }
      pendingCurrency = undefined;
      return;
    }
    const ordinal = ORDINAL_WORDS[token.lower];
    if (ordinal !== undefined) {
      addPole(poles, "ordinal", ordinal);
      return;
    }
    const wordValue = NUMBER_WORDS[token.lower] ?? (ONE.has(token.lower) && nextUnit ? 1 : undefined);
    if (wordValue !== undefined) {
      const value = String(wordValue);
      numbers.push(value);
      if (nextUnit) {
        // As for digits: "three day trip" and "3 day trip" have the same units.
        bind(value, nextUnit);
        units.add(nextUnit);
      }
      return;
    }
    const unit = UNITS[token.lower];
    if (unit) {
      const quantified = !WORD_UNITS.has(unit) || QUANTITY_WORDS.has(tokens[i - 1]?.lower ?? "");
      if (quantified && !BOUND_ONLY_UNITS.has(token.lower)) units.add(unit);
      pendingCurrency = CURRENCY_UNITS.has(unit) ? unit : undefined;
      return;
    }
    pendingCurrency = undefined;
    if (isIdentifier(token.raw)) identifiers.push(token.lower);
    else if (!shouting && isName(token)) names.push(token.lower.replace(/'s?$/, ""));
  });

  const wordList = flat.replace(/n't\b/g, " not").match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of wordList) for (const [axis, index] of AXIS_POLES_OF.get(word) ?? []) addPole(poles, axis, index);

  return {
    words,
    flat,
    numbers: numbers.sort(),
    operators: [...normalised.matchAll(OPERATOR)].map(([symbol]) => symbol).sort(),
    boundUnits,
    units,
    names,
    identifiers,
    quoted: quotedStrings(normalised),
    negated: wordList.some((word) => NEGATIONS.has(word)),
    temporal: new Set(wordList.flatMap(temporalWord)),
    poles,
    tokens: roleTokens(normalised),
    unread: readability?.unreadParts(normalised) ?? [],
  };
}

/**
 * Does serving `stored`'s answer to `query` risk answering a different question? The cheap
 * comparisons of extracted facts run first; the antonym and role checks, which look at every
 * word, only for candidates that pass them.
 */
export function guardMatch(query: PromptFacts, stored: PromptFacts): GuardVerdict {
  const fail = (check: GuardCheck, reason: string = check): GuardVerdict => ({ pass: false, check, reason });
  if (query.unread.join("\n") !== stored.unread.join("\n")) return fail("unread", `unread by the encoder: ${brief(query.unread)} vs ${brief(stored.unread)}`);
  if (query.numbers.join(" ") !== stored.numbers.join(" ")) return fail("numbers", `numbers ${query.numbers.join(",")} vs ${stored.numbers.join(",")}`);
  if (query.operators.join(" ") !== stored.operators.join(" ")) return fail("numbers", `operators ${query.operators.join(" ") || "none"} vs ${stored.operators.join(" ") || "none"}`);
  for (const [value, queryUnits] of query.boundUnits) {
    const storedUnits = stored.boundUnits.get(value);
    if (storedUnits && !sameSet(queryUnits, storedUnits)) return fail("units", `unit of ${value}`);
  }
  if (!sameSet(query.units, stored.units)) return fail("units", `units ${[...query.units]} vs ${[...stored.units]}`);
  if (!sameSet(query.temporal, stored.temporal)) return fail("date_time", "date or time");
  for (const [a, b] of [[query, stored], [stored, query]] as const) {
    const name = a.names.find((n) => !containsWord(b.words, n));
    if (name) return fail("names", `name "${name}"`);
    const identifier = a.identifiers.find((id) => !b.flat.includes(id));
    if (identifier) return fail("identifiers", `identifier "${identifier}"`);
    const quote = a.quoted.find((q) => !b.flat.includes(q));
    if (quote) return fail("quotes", `quoted "${quote}"`);
  }
  for (const [axis, queryPoles] of query.poles) {
    const storedPoles = stored.poles.get(axis);
    if (storedPoles && !sameSet(queryPoles, storedPoles)) return fail("opposites", `opposite ${axis}`);
  }
  const opposed = opposition(query, stored);
  // A negation and an antonym cancel out: "not mandatory" / "optional", "don't forget" / "remember".
  if (query.negated !== stored.negated) {
    if (!opposed) return fail("negation");
  } else if (opposed) return fail("opposites", `opposite "${opposed[0]}" / "${opposed[1]}"`);
  const swap = roleSwap(query.tokens, stored.tokens);
  if (swap) return fail("roles", `roles: ${swap}`);
  const scope = scopeChange(query.tokens, stored.tokens);
  if (scope) return fail("scope", scope);
  return { pass: true };
}

/** A few unread parts for a rejection's reason: a Thai sentence is one "word" and may be long. */
function brief(parts: string[]): string {
  if (parts.length === 0) return "nothing";
  const shown = parts.slice(0, 3).map((part) => ([...part].length > 20 ? `${[...part].slice(0, 20).join("")}…` : part));
  return parts.length > 3 ? `${shown.join(" ")} (+${parts.length - 3})` : shown.join(" ");
}

/** A word that fixes the time asked about, in its base form: "nighttime" and "nights" are "night". */
function temporalWord(word: string): string[] {
  const form = [word, word.replace(/time$/, ""), word.replace(/s$/, "")].find((candidate) => TEMPORAL_WORDS.has(candidate));
  return form ? [form] : [];
}

const termIndexes = new WeakMap<PromptFacts, TermIndex>();

/** The first pair of opposite words between two prompts (negation words aside: compared on their own). */
export function opposition(query: PromptFacts, stored: PromptFacts): [string, string] | undefined {
  return firstOpposition(termIndexOf(query), termIndexOf(stored));
}

/**
 * Computes ahead what guardMatch would otherwise compute for these facts the first time they get
 * that far (their term index), so the server can do it off a lookup's path.
 */
export function prepareForMatching(facts: PromptFacts): PromptFacts {
  termIndexOf(facts);
  return facts;
}

/** Computed once per prompt, when a candidate first gets this far (or ahead: prepareForMatching). */
function termIndexOf(facts: PromptFacts): TermIndex {
  let index = termIndexes.get(facts);
  if (!index) {
    index = indexTerms(facts.tokens, NEGATIONS);
    termIndexes.set(facts, index);
  }
  return index;
}

function addPole(poles: Map<string, Set<number>>, axis: string, pole: number) {
  const used = poles.get(axis) ?? new Set<number>();
  used.add(pole);
  poles.set(axis, used);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const line of text.split("\n")) {
    let sentenceStart = true;
    for (const chunk of line.split(/\s+/)) {
      if (!chunk) continue;
      const raw = trimPunctuation(chunk);
      splitNumberCompound(raw).forEach((part, k) => tokens.push({ raw: part, lower: part.toLowerCase(), sentenceStart: sentenceStart && k === 0 }));
      sentenceStart = /[.!?:]["')\]]*$/.test(chunk) || (!raw && sentenceStart);
    }
  }
  return tokens;
}

/** "3-day", "three-day", "one-sentence", "500-word": a count and what it counts. */
const NUMBER_COMPOUND = /^(\d+(?:\.\d+)?|\p{L}+)-(\p{L}+)$/u;
/** Number words that multiply rather than count ("double-check", "half-time"): not split. */
const MULTIPLIERS = new Set(["half", "twice", "double", "triple"]);

/**
 * A number joined to a word by a hyphen is read as the number and the word, so "a three-day trip"
 * and "a five-day trip" differ in numbers and "a 3-day trip" / "a 3 day trip" agree.
 */
function splitNumberCompound(raw: string): string[] {
  if (!raw) return [];
  const match = NUMBER_COMPOUND.exec(raw);
  if (!match) return [raw];
  const [, count, counted] = match as unknown as [string, string, string];
  const word = count.toLowerCase();
  const isCount = /^\d/.test(count) || ONE.has(word) || (word in NUMBER_WORDS && !MULTIPLIERS.has(word));
  return isCount ? [count, counted] : [raw];
}

/** Strips quotes, brackets and sentence punctuation around a token, keeping a call's "()". */
function trimPunctuation(chunk: string): string {
  const stripped = chunk.replace(OPENERS, "");
  const call = /\w\(\)[^\w]*$/.test(stripped);
  const trimmed = stripped.replace(/[^\p{L}\p{N}%°$€£¥₹]+$/u, "");
  return trimmed && call ? `${trimmed}()` : trimmed;
}

/** Values of a numeric token: "30,000" and "30k" → 30000; "500,1000" → 500 and 1000; "5km" carries its unit. */
function parseNumber(token: string): { values: string[]; unit: string | undefined } | undefined {
  let body = token;
  let unit: string | undefined;
  const currency = UNITS[body[0]!];
  if (currency && /^[$€£¥₹]/.test(body)) {
    unit = currency;
    body = body.slice(1);
  }
  if (!/^\d/.test(body) || /\d\.\d+\./.test(body)) return undefined;
  if (/^\d+(,\d+)+$/.test(body) && !/^\d{1,3}(,\d{3})+$/.test(body)) return { values: body.split(",").map(canonicalNumber), unit };
  const match = NUMBER.exec(body);
  if (!match) return undefined;
  const [, whole, fraction = "", suffix] = match;
  let value = Number(whole!.replaceAll(",", "") + fraction);
  if (suffix === "am" || suffix === "pm") return { values: [`${canonicalNumber(String(value))}${suffix}`], unit };
  if (suffix && NUMBER_SCALES[suffix]) value *= NUMBER_SCALES[suffix]!;
  else if (suffix && UNITS[suffix]) unit = UNITS[suffix];
  else if (suffix && !/^(st|nd|rd|th|s)$/.test(suffix)) return undefined; // "4g", "mp3": a name, not a quantity
  return { values: [canonicalNumber(String(value))], unit };
}

function canonicalNumber(text: string): string {
  return String(Number(text));
}

/**
 * snake_case, dotted.names, calls(), --flags, paths (not prose "and/or": a path has a leading
 * slash or two of them), and anything mixing digits with punctuation (versions, dates, times).
 */
/**
 * Code-like tokens, and opaque codes: six characters or more mixing letters and digits (hashes,
 * hex, keys, order and serial numbers, "covid19"). Embeddings barely tell two of them apart: "What
 * is the SHA-256 of 9f86d0…?" and the same question about another hash score 0.96.
 */
function isIdentifier(raw: string): boolean {
  return (
    /\w_\w|^_\w|\w\.\w|\w\(\)$|^--?\w|^[.~]?\/\w|\w\/\w+\/|\w::\w|->/u.test(raw) ||
    (/\d/.test(raw) && /[^\p{L}\p{N}]/u.test(raw)) ||
    (raw.length >= 6 && /\d/.test(raw) && /\p{L}/u.test(raw))
  );
}

function isName(token: Token): boolean {
  const letters = token.raw.replace(/[^\p{L}\p{N}]/gu, "");
  if (!/\p{Lu}/u.test(letters)) return false;
  if (NOT_NAMES.has(token.lower)) return false;
  if (/\p{Lu}/u.test(letters.slice(1)) || /\p{N}/u.test(letters)) return true; // acronyms, PyTorch, iPhone, GPT4
  return !token.sentenceStart;
}

function quotedStrings(text: string): string[] {
  const found: string[] = [];
  for (const pattern of [/"+([^"\n]{1,200}?)"+/g, /`+([^`\n]{1,200}?)`+/g, /(?:^|[\s(])'([^'\n]{1,200}?)'(?=[\s.,;:!?)]|$)/g]) {
    for (const match of text.matchAll(pattern)) {
      const inner = match[1]!.toLowerCase().replace(/\s+/g, " ").trim();
      if (inner) found.push(inner);
    }
  }
  return found;
}

/** A name is found when a word of the other prompt equals it, or one extends the other by a suffix (India ~ Indian). */
function containsWord(words: Set<string>, name: string): boolean {
  const parts = name.match(/[\p{L}\p{N}]+/gu) ?? [];
  return parts.every((part) => {
    if (words.has(part)) return true;
    if (part.length < 4) return false;
    for (const word of words) {
      if (word.length >= 4 && Math.abs(word.length - part.length) <= 3 && (word.startsWith(part) || part.startsWith(word))) return true;
    }
    return false;
  });
}

function sameSet<T>(a: Set<T>, b: Set<T>): boolean {
  return a.size === b.size && [...a].every((item) => b.has(item));
}
