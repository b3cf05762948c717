/**
 * Who does what to whom. Two prompts with the same words can ask opposite things when the words
 * swap roles: "convert JSON to YAML" / "convert YAML to JSON", "from the buyer to the seller" /
 * "from the seller to the buyer", "did Germany beat Argentina" / "did Argentina beat Germany",
 * "is Go faster than Rust" / "is Rust faster than Go". Moving a phrase is harmless ("in Python, how
 * do I …" / "how do I … in Python"), and so is swapping the sides of a symmetric relation ("X vs Y",
 * "X and Y", "between X and Y").
 *
 * Two checks over the words both prompts share:
 * - marked roles: a word right after "from" / "to" / "into" / "than" (articles and possessives may
 *   stand between) takes that role. Two shared words that trade places around the same marker
 *   are swapped;
 * - unmarked roles: two shared content words in opposite order, joined by the same words in both
 *   prompts, none of them symmetric ("Germany beat Argentina" / "Argentina beat Germany"; not
 *   "match fixing and spot fixing" / "spot fixing and match fixing").
 */

import { sameLemma } from "./antonyms";

type Role = "source" | "target" | "than";

// No prototype: looked up by arbitrary words, and "constructor" must not find Object.
const ROLE_MARKERS: Record<string, Role> = Object.assign(Object.create(null), { from: "source", to: "target", into: "target", onto: "target", towards: "target", toward: "target", "->": "target", "→": "target", than: "than" });

/** Words that may stand between a role marker and its word: "from the seller", "to my server". */
export const DETERMINERS = new Set(["a", "an", "the", "my", "your", "our", "their", "his", "her", "its", "this", "that", "these", "those", "some", "another"]);

/** Joining words of a symmetric relation: swapping its sides changes nothing. */
const SYMMETRIC = new Set(["and", "or", "vs", "versus", "v", "with", "nor", "plus", "between", "&", "/", ",", "compared", "both", "either", "neither", "also", "as", "well"]);

/** Closed-class words: never the content whose role is compared. */
export const FUNCTION_WORDS = new Set([
  ...DETERMINERS, ...Object.keys(ROLE_MARKERS), ...SYMMETRIC,
  "i", "me", "you", "he", "she", "it", "we", "they", "them", "us", "him", "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
  "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done", "have", "has", "had", "can", "could", "will", "would",
  "shall", "should", "may", "might", "must", "of", "in", "on", "at", "for", "by", "about", "over", "under", "per", "via", "there", "here",
  "if", "then", "so", "but", "not", "no", "any", "all", "each", "every", "s", "t", "please", "way", "ways", "best", "good", "get", "make",
]);

/** Longest run of joining words compared between two swapped words. */
const MAX_JOIN = 4;

/** Lower-case words in order, hyphenated compounds and code-ish words kept whole ("sugar-free", "c++", "node.js"). */
export function roleTokens(text: string): string[] {
  const tokens = text.toLowerCase().replace(/n't\b/g, " not").match(/->|→|[\p{L}\p{N}][\p{L}\p{N}+#.'-]*[\p{L}\p{N}+#]|[\p{L}\p{N}]/gu) ?? [];
  // One indefinite article: its form follows the next word ("a yen" / "an Indian rupee", "a beginner-friendly trail" / "an advanced trail").
  return tokens.map((token) => (token === "an" ? "a" : token));
}

/** The first role swap between two prompts (as token lists), described; undefined if none. */
export function roleSwap(a: string[], b: string[]): string | undefined {
  const aContent = contentPositions(a);
  const bContent = contentPositions(b);
  const shared = [...aContent.keys()].filter((word) => bContent.has(word));
  if (shared.length === 0) return undefined;

  // Marked roles: two shared words that exchange places around the same marker ("JSON to YAML" /
  // "YAML to JSON", "from the buyer to the seller" / "from the seller to the buyer"). One word
  // changing its preposition alone is a rewording ("access to cloud storage" / "accessed from
  // cloud storage"), not a swap.
  const aMarked = shared.map((word) => ({ word, ...markerOf(a, aContent.get(word)!) }));
  const bMarked = new Map(shared.map((word) => [word, markerOf(b, bContent.get(word)!)]));
  for (const x of aMarked) {
    if (!x.role) continue;
    const xInB = bMarked.get(x.word)!;
    if (xInB.role === x.role) continue;
    for (const y of aMarked) {
      const yInB = bMarked.get(y.word)!;
      if (y.word === x.word || yInB.role !== x.role || y.role === x.role) continue;
      // Both marked, roles exchanged: "from X to Y" / "from Y to X".
      if (y.role && xInB.role === y.role) return `"${x.word}" and "${y.word}" exchange the ${x.role} and ${y.role} roles`;
      // One marked: y stood just before x's marker in one prompt, x just before y's in the other.
      if (!y.role && !xInB.role && near(aContent.get(y.word)!, x.marker!) && near(bContent.get(x.word)!, yInB.marker!)) {
        return `"${x.word}" and "${y.word}" trade the ${x.role} role`;
      }
    }
  }

  // Whole marked phrases exchanging roles, numbers included: "from Python 2 to Python 3" /
  // "from Python 3 to Python 2" (the repeated "python" and the numbers are no content words above).
  const aPhrases = markedPhrases(a);
  const bPhrases = markedPhrases(b);
  for (const [p, role] of aPhrases) {
    const roleInB = bPhrases.get(p);
    if (!roleInB || roleInB === role) continue;
    for (const [q, other] of aPhrases) {
      if (q !== p && other === roleInB && bPhrases.get(q) === role) return `"${p}" and "${q}" exchange the ${role} and ${roleInB} roles`;
    }
  }

  const traded = tradedPhrases(a, b);
  if (traded) return traded;

  // Unmarked roles: the same joining words, the two sides swapped.
  for (let i = 0; i < shared.length; i++) {
    for (let j = i + 1; j < shared.length; j++) {
      let [x, y] = [shared[i]!, shared[j]!];
      if (aContent.get(x)! > aContent.get(y)!) [x, y] = [y, x];
      if (bContent.get(y)! > bContent.get(x)!) continue;
      const aJoin = between(a, aContent.get(x)!, aContent.get(y)!);
      const bJoin = between(b, bContent.get(y)!, bContent.get(x)!);
      if (aJoin.length && aJoin.length <= MAX_JOIN && aJoin.join(" ") === bJoin.join(" ") && !aJoin.some((w) => SYMMETRIC.has(w))) {
        return `"${x}" and "${y}" swap around "${aJoin.join(" ")}"`;
      }
    }
  }
  return undefined;
}

/**
 * Two phrases that trade places in the same sentence frame: "What time is it in New York when it
 * is 9am in London?" / "… in London when it is 9am in New York?" (cosine 0.992). A phrase is a run
 * of content words (so a name of several words is one); the frame is everything else. Same frame,
 * same phrases, two of them exchanged, and not across a symmetric join ("between X and Y").
 */
function tradedPhrases(a: string[], b: string[]): string | undefined {
  const aFrame = frame(a);
  const bFrame = frame(b);
  if (aFrame.words.join(" ") !== bFrame.words.join(" ") || aFrame.phrases.length !== bFrame.phrases.length) return undefined;
  const differing = aFrame.phrases.flatMap((phrase, i) => (samePhrase(phrase, bFrame.phrases[i]!) ? [] : [i]));
  if (differing.length !== 2) return undefined;
  const [i, j] = differing as [number, number];
  const [x, y] = [aFrame.phrases[i]!, aFrame.phrases[j]!];
  if (!samePhrase(bFrame.phrases[i]!, y) || !samePhrase(bFrame.phrases[j]!, x)) return undefined;
  const join = aFrame.words.slice(aFrame.slots[i]! + 1, aFrame.slots[j]!);
  if (join.every((word) => SYMMETRIC.has(word) || DETERMINERS.has(word))) return undefined;
  return `"${x}" and "${y}" trade places`;
}

/** Word by word the same up to inflection: "swiss francs" / "swiss franc". */
function samePhrase(a: string, b: string): boolean {
  const aWords = a.split(" ");
  const bWords = b.split(" ");
  return aWords.length === bWords.length && aWords.every((word, i) => sameLemma(word, bWords[i]!));
}

/** A prompt as its frame (function words, each run of content words one slot "_") and the runs. */
function frame(tokens: string[]): { words: string[]; slots: number[]; phrases: string[] } {
  const words: string[] = [];
  const slots: number[] = [];
  const phrases: string[] = [];
  let run: string[] = [];
  const close = () => {
    if (run.length === 0) return;
    slots.push(words.length);
    words.push("_");
    phrases.push(run.join(" "));
    run = [];
  };
  for (const word of tokens) {
    if (FUNCTION_WORDS.has(word)) {
      close();
      words.push(word);
    } else run.push(word);
  }
  close();
  return { words, slots, phrases };
}

/** Content words that occur once, with their position (a repeated word has no single role). */
function contentPositions(tokens: string[]): Map<string, number> {
  const positions = new Map<string, number>();
  const repeated = new Set<string>();
  tokens.forEach((word, index) => {
    if (FUNCTION_WORDS.has(word) || /^\d/.test(word)) return;
    if (positions.has(word)) repeated.add(word);
    positions.set(word, index);
  });
  for (const word of repeated) positions.delete(word);
  return positions;
}

/** The role marker governing the word at `index` ("to [the] X"), and the marker's position. */
function markerOf(tokens: string[], index: number): { role?: Role; marker?: number } {
  for (let at = index - 1; at >= 0 && at >= index - 3; at--) {
    const role = ROLE_MARKERS[tokens[at]!];
    if (role) return { role, marker: at };
    if (!DETERMINERS.has(tokens[at]!)) break;
  }
  return {};
}

/** Each phrase right after a role marker (articles skipped, up to the next closed-class word) → its role. */
function markedPhrases(tokens: string[]): Map<string, Role> {
  const phrases = new Map<string, Role>();
  tokens.forEach((word, index) => {
    const role = ROLE_MARKERS[word];
    if (!role) return;
    let at = index + 1;
    while (DETERMINERS.has(tokens[at] ?? "")) at++;
    const words: string[] = [];
    while (at < tokens.length && words.length < MAX_JOIN && !FUNCTION_WORDS.has(tokens[at]!)) words.push(tokens[at++]!);
    const phrase = words.join(" ");
    if (phrase && !phrases.has(phrase)) phrases.set(phrase, role);
  });
  return phrases;
}

/** Is a word at `index` close before the marker at `marker` ("PDF to", "Word document to")? */
function near(index: number, marker: number): boolean {
  return index < marker && marker - index <= MAX_JOIN;
}

/** The words strictly between two positions, without articles. */
function between(tokens: string[], from: number, to: number): string[] {
  return tokens.slice(from + 1, to).filter((word) => !DETERMINERS.has(word));
}
