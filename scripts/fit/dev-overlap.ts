/**
 * The project-written training rows must not be near copies of firewall-dev rows: the dev set is
 * never fitted on, and a text taken from the same public prompt library as a dev row is "derived
 * from it" all the same (two matched pairs once copied awesome-chatgpt-prompts texts that deepset
 * also holds). The same test the datasets' builder applies to firewall-train-v2: word 5-gram
 * Jaccard, lower-cased.
 */
import { join } from "node:path";
import { DATASETS, readLabelled } from "../eval/firewall-data";

/** Word 5-gram Jaccard at or above this is a near copy (a shared stock phrase such as "I want you to act as" stays far below). */
export const NEAR_COPY_JACCARD = 0.5;

function shingles(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const grams = new Set<string>();
  for (let i = 0; i + 5 <= words.length; i++) grams.add(words.slice(i, i + 5).join(" "));
  return grams;
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const gram of a) if (b.has(gram)) shared++;
  return shared === 0 ? 0 : shared / (a.size + b.size - shared);
}

/** Every text at or above NEAR_COPY_JACCARD with a firewall-dev row, with that row's id. */
export function devNearCopies(texts: string[], devFile = join(DATASETS, "firewall-dev.jsonl")): { text: string; devId: string; jaccard: number }[] {
  const dev = readLabelled(devFile).map((row) => ({ id: row.id, grams: shingles(row.text) }));
  const found: { text: string; devId: string; jaccard: number }[] = [];
  for (const text of texts) {
    const grams = shingles(text);
    if (grams.size === 0) continue;
    for (const row of dev) {
      const score = jaccard(grams, row.grams);
      if (score >= NEAR_COPY_JACCARD) found.push({ text, devId: row.id, jaccard: score });
    }
  }
  return found;
}

/** Throws, naming the rows, when any project-written text is a near copy of a firewall-dev row. */
export function assertNotFromDev(texts: string[]): void {
  const found = devNearCopies(texts);
  if (found.length === 0) return;
  const lines = found.map((f) => `  ${f.devId} (Jaccard ${f.jaccard.toFixed(2)}): ${f.text.slice(0, 100)}…`);
  throw new Error(`project-written training rows must not copy firewall-dev rows; remove these:\n${lines.join("\n")}`);
}
