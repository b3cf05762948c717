/**
 * Embeds every window of a prepare-firewall-data.ts file with the firewall's encoder as the server
 * runs it (the general model's int8 graph: the layer-4 mean and the last layer's, one run; the
 * on-disk vector cache of scripts/eval/firewall-data.ts) and writes them for the Python recipe
 * (firewall_recipe.py head-loso): OUT.f32 (per window, 384 layer-4 floats then 384 last-layer
 * floats, little-endian) beside the windows' order in the input file.
 *
 *   bun scripts/train/dump-firewall-vectors.ts TOKENS.jsonl OUT.f32
 */
import { readFileSync, writeFileSync } from "node:fs";
import { loadConfig } from "../../src/config";
import { FirstSightEmbedding } from "../eval/firewall-data";

const [input, out] = process.argv.slice(2);
if (!input || !out) throw new Error("usage: bun scripts/train/dump-firewall-vectors.ts TOKENS.jsonl OUT.f32");
const texts = readFileSync(input, "utf8")
  .split("\n")
  .filter((line) => line.trim())
  .flatMap((line) => (JSON.parse(line) as { texts: string[] }).texts);
const embedding = await FirstSightEmbedding.load(loadConfig([]));
const lastLayer = embedding.customSpace;
if (!lastLayer) throw new Error("the firewall's encoder has no layer-4 view: the shipped head reads two vectors");
const layer4 = await embedding.embedMany(texts);
const last = await lastLayer.embedMany(texts);
embedding.save();
const dims = layer4[0]!.length;
const all = new Float32Array(texts.length * dims * 2);
texts.forEach((_, i) => {
  all.set(layer4[i]!, i * dims * 2);
  all.set(last[i]!, i * dims * 2 + dims);
});
writeFileSync(out, Buffer.from(all.buffer));
console.error(`dump-firewall-vectors: ${texts.length} windows × ${dims * 2} → ${out}`);
process.exit(0);
