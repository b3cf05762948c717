/**
 * Token ids for training a data-channel reader with scripts/train/firewall_recipe.py (precompute,
 * train): the addressee head's own training windows, and windows to score only.
 *
 *   bun scripts/fit/firewall-data-channel.ts --out /tmp/rule.json --dump-head-windows HEAD.jsonl [--answer-rows N]
 *   bun scripts/eval/firewall-data-channel-rules.ts --dump-windows DEV.jsonl
 *   bun scripts/train/prepare-data-channel-windows.ts TOKENS.jsonl HEAD.jsonl [--score DEV.jsonl]
 *
 * Each window is a row of one window (the head reads windows one by one): the training windows keep
 * their pool as the group (so every pool weighs the same within its label); the windows to score
 * (split "score") carry the dev set's kind as the group. Training only: install, start and the
 * tests never run it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Embedder } from "../../src/embeddings/embedder";

const MODEL_DIR = resolve(import.meta.dir, "../../models/all-MiniLM-L6-v2");
/** Token cap per window, [CLS] and [SEP] included, as prepare-firewall-data.ts. */
const MAX_TOKENS = 64;

const { values: flags, positionals } = parseArgs({ allowPositionals: true, options: { score: { type: "string", multiple: true, default: [] } } });
const [out, ...inputs] = positionals;
if (!out || inputs.length === 0) throw new Error("usage: bun scripts/train/prepare-data-channel-windows.ts TOKENS.jsonl HEAD.jsonl ... [--score DEV.jsonl ...]");

const { tokenizer } = await Embedder.tokenizerFor(MODEL_DIR);
const ids = (text: string): number[] => {
  const all = [...tokenizer.encode(text).ids];
  return all.length <= MAX_TOKENS ? all : [...all.slice(0, MAX_TOKENS - 1), all.at(-1)!];
};
const read = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { id: string; group?: string; kind?: string; attack: boolean; text: string });

const lines: string[] = [];
for (const file of inputs) for (const w of read(file)) lines.push(JSON.stringify({ id: w.id, group: w.group, attack: w.attack ? 1 : 0, windows: [ids(w.text)], texts: [w.text] }));
const training = lines.length;
for (const file of flags.score) for (const w of read(file)) lines.push(JSON.stringify({ id: w.id, group: w.kind ?? w.group, attack: w.attack ? 1 : 0, split: "score", windows: [ids(w.text)], texts: [w.text] }));
writeFileSync(out, `${lines.join("\n")}\n`);
console.error(`prepare: ${training} training windows, ${lines.length - training} to score → ${out}`);
