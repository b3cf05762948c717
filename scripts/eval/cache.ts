/**
 * `npm run eval:cache [file.jsonl …]`: how often the semantic cache serves the right answer, a
 * wrong one, or none, over paraphrase pairs `{stored, query}` (default: the two dev sets).
 *
 * The GPTCache method, through the server's own code: every `stored` text becomes an entry via
 * ResponseCache.store, every `query` is looked up via ResponseCache.lookup (the same keys, Hamming
 * search, exact re-scoring and precision guard as the proxy), at thresholds 0.80 to 0.98. A hit
 * on an entry of the query's paraphrase group (connected component of all pairs: some sets repeat
 * questions and chain pairs) is correct, a hit on any other entry is wrong. Then the novel-
 * question case: the group's entries are removed and each query looked up again; every hit now
 * serves someone else's answer.
 *
 * Besides the tables: the same curves for cosine similarity alone over every entry (what the
 * guard and the binary pre-filter change), the guard's rejections by reason, and a sample of the
 * counted wrong hits at the default threshold to read (labels of such sets are incomplete).
 *
 * The adversarial set (scripts/eval/cache-adversarial.jsonl, written for this project) is judged
 * pair by pair, each pair alone in its own scope: `expect: "miss"` pairs (opposites, negation,
 * swapped roles, entity, number, unit, language, format, scope) must not be served, `expect:
 * "hit"` pairs (paraphrases) should be. Reported per kind and split (dev / holdout).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CacheCounters } from "../../src/cache/counters";
import { ResponseCache, type CacheRequest } from "../../src/cache/stage";
import { CacheMetrics } from "../../src/metrics/cache";
import { openaiChat } from "../../src/proxy/dialects/openai-chat";
import { chooseMatch } from "../../src/cache/match";
import { DEFAULT_SEMANTIC_THRESHOLD, deleteEntry } from "../../src/cache/service";
import { dot } from "../../src/cache/vector-codec";
import { configWith } from "../../src/config";
import { openSqlite } from "../../src/db/sqlite";
import { VectorMemo } from "../../src/embeddings/vector-memo";
import { Logger } from "../../src/logging/logger";
import { assetPaths } from "../../src/runtime/assets";
import { EmbedderSlot } from "../../src/runtime/embedder-slot";
import { loadEmbedder } from "../../src/server";
import { WorkspaceScope } from "../../src/tenancy/scope";
import { createWorkspace, type Workspace } from "../../src/tenancy/service";
import { markdownTable } from "../bench/stats";

const root = resolve(import.meta.dir, "../..");
const ADVERSARIAL_FILE = resolve(import.meta.dir, "cache-adversarial.jsonl");
const DEFAULT_FILES = [...["cache-dev.jsonl", "cache-dev-qqp.jsonl"].map((name) => resolve(root, "../shared/datasets", name)), ADVERSARIAL_FILE];
const THRESHOLDS = [0.8, 0.82, 0.84, 0.86, 0.88, 0.9, 0.92, 0.94, 0.95, 0.96, 0.98];
const SAMPLE = 12;

type Pair = { stored: string; query: string };
type AdversarialPair = Pair & { id: string; kind: string; expect: "hit" | "miss"; split: "dev" | "holdout" };

const files = process.argv.slice(2).length ? process.argv.slice(2) : DEFAULT_FILES;
const config = configWith({});
const embedder = await loadEmbedder(config);
const slot = EmbedderSlot.of(embedder);
await slot.loaded;
const vectors = new VectorMemo(() => slot.require(), 50_000).forWorkspace("eval");
const log = new Logger("silent");

console.log(`# Semantic cache evaluation\n`);
console.log(`Model ${embedder.modelName} (${config.embedPrecision}); default threshold ${DEFAULT_SEMANTIC_THRESHOLD}.`);
for (const file of files) await (file.endsWith("cache-adversarial.jsonl") ? evaluateAdversarial(file) : evaluate(file));
process.exit(0);

function readPairs<T>(file: string): T[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);
}

/** A throw-away database, a workspace in it, and the server's cache over it. */
async function evalCache() {
  const dataDir = mkdtempSync(join(tmpdir(), "sieve-eval-cache-"));
  const assets = assetPaths();
  const database = openSqlite({ dataDir, vecExtension: assets.vecExtension, migrationsDir: assets.migrationsDir });
  const base = await createWorkspace(database.db, "eval");
  const scope = new WorkspaceScope(database, base.id);
  const cacheCounters = new CacheCounters(log, config.evidenceFlushMs);
  const cache = new ResponseCache({ config, vectors, embedder: slot, log, metrics: { cache: new CacheMetrics() }, cacheCounters });
  const request = (text: string, workspace: Workspace, model = "eval-model"): CacheRequest => ({
    scope,
    workspace,
    upstreamUrl: "http://provider.invalid/v1",
    view: openaiChat.read({ model, messages: [{ role: "user", content: text }] }),
    cacheControl: { lookup: true, store: true, ttlSeconds: undefined },
    clientSignal: new AbortController().signal,
  });
  // The stored answer is the stored text itself: a hit says which entry answered.
  const store = (text: string, workspace: Workspace, model?: string) =>
    cache.store(request(text, workspace, model), { object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: text } }] }, 100);
  const close = () => {
    void cacheCounters.close().then(() => database.close());
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { base, scope, cache, request, store, close };
}

async function evaluateAdversarial(file: string) {
  const pairs = readPairs<AdversarialPair>(file);
  await embedInBatches([...new Set(pairs.flatMap((p) => [p.stored, p.query]))]);
  const { base, cache, request, store, close } = await evalCache();
  const workspace: Workspace = { ...base, cacheMaxEntries: 1_000_000, cacheThreshold: DEFAULT_SEMANTIC_THRESHOLD };
  const rows = new Map<string, { pairs: number; aboveThreshold: number; served: number }>();
  const failures: string[] = [];
  for (const pair of pairs) {
    // Each pair alone: its own model name is its own scope.
    await store(pair.stored, workspace, pair.id);
    const served = (await cache.lookup(request(pair.query, workspace, pair.id))) !== undefined;
    const similarity = dot(vectors.peek(pair.query)!, vectors.peek(pair.stored)!);
    const key = `${pair.expect === "hit" ? "must hit" : "must not hit"}|${pair.kind}|${pair.split}`;
    const row = rows.get(key) ?? { pairs: 0, aboveThreshold: 0, served: 0 };
    row.pairs++;
    if (similarity >= DEFAULT_SEMANTIC_THRESHOLD) row.aboveThreshold++;
    if (served) row.served++;
    rows.set(key, row);
    if (served !== (pair.expect === "hit")) {
      const verdict = chooseMatch(pair.query, [{ entry: pair.stored, prompt: pair.stored, similarity }], DEFAULT_SEMANTIC_THRESHOLD, { readability: embedder.readability });
      const why = served ? "served" : (verdict.rejected[0]?.reason ?? "below threshold");
      failures.push(`- [${pair.split}] ${pair.id} ${similarity.toFixed(3)} ${why}: "${clip(pair.stored)}" → "${clip(pair.query)}"`);
    }
  }
  close();

  const totals = (expect: string, split?: string) => {
    const total = { pairs: 0, aboveThreshold: 0, served: 0 };
    for (const [key, row] of rows) {
      const [e, , s] = key.split("|");
      if (e !== expect || (split && s !== split)) continue;
      total.pairs += row.pairs;
      total.aboveThreshold += row.aboveThreshold;
      total.served += row.served;
    }
    return total;
  };
  const pct = (count: number, of: number) => (of === 0 ? "-" : `${((100 * count) / of).toFixed(1)}`);
  const line = (expect: string, kind: string, split: string, row: { pairs: number; aboveThreshold: number; served: number }) =>
    [expect, kind, split, String(row.pairs), `${row.aboveThreshold} (${pct(row.aboveThreshold, row.pairs)} %)`, `${row.served} (${pct(row.served, row.pairs)} %)`];
  const table = [...rows].sort(([a], [b]) => a.localeCompare(b)).map(([key, row]) => line(...(key.split("|") as [string, string, string]), row));
  for (const expect of ["must not hit", "must hit"]) {
    for (const split of ["dev", "holdout"]) table.push(line(expect, "**all**", split, totals(expect, split)));
    table.push(line(expect, "**all**", "both", totals(expect)));
  }
  console.log(`\n## ${file.split("/").pop()}: ${pairs.length} hand-written pairs, each alone in its scope, threshold ${DEFAULT_SEMANTIC_THRESHOLD}\n`);
  console.log(markdownTable(["expect", "kind", "split", "pairs", "cosine ≥ threshold", "served"], table));
  console.log(`\nPairs judged wrongly (a must-not-hit served, a paraphrase missed): ${failures.length}\n`);
  for (const failure of failures) console.log(failure);
}

async function evaluate(file: string) {
  const pairs = readPairs<Pair>(file);
  const groupOf = paraphraseGroups(pairs);
  const storedTexts = [...new Set(pairs.map((p) => p.stored))];
  const started = performance.now();
  await embedInBatches([...new Set([...storedTexts, ...pairs.map((p) => p.query)])]);
  const embedSeconds = (performance.now() - started) / 1000;

  const { base, scope, cache, request, store: storeIn, close } = await evalCache();
  const workspaceAt = (threshold: number): Workspace => ({ ...base, cacheMaxEntries: 1_000_000, cacheThreshold: threshold });
  const store = (text: string) => storeIn(text, workspaceAt(0.9));
  const servedText = (hit: { completion: Record<string, unknown> }) => (hit.completion.choices as { message: { content: string } }[])[0]!.message.content;
  for (const text of storedTexts) await store(text);

  // Every query against every entry, at each threshold.
  const served = new Map<number, { correct: number; wrong: number }>(THRESHOLDS.map((t) => [t, { correct: 0, wrong: 0 }]));
  const wrongAtDefault: { similarity: number; query: string; served: string }[] = [];
  for (const threshold of THRESHOLDS) {
    for (const pair of pairs) {
      const hit = await cache.lookup(request(pair.query, workspaceAt(threshold)));
      if (!hit) continue;
      const text = servedText(hit);
      const right = groupOf.get(text) === groupOf.get(pair.query);
      served.get(threshold)![right ? "correct" : "wrong"]++;
      if (!right && threshold === DEFAULT_SEMANTIC_THRESHOLD) wrongAtDefault.push({ similarity: hit.similarity, query: pair.query, served: text });
    }
  }

  // Novel questions: the query's whole group is gone; any hit is a wrong answer.
  const novel = new Map<number, number>(THRESHOLDS.map((t) => [t, 0]));
  const novelAtDefault: typeof wrongAtDefault = [];
  const byGroup = Map.groupBy(pairs, (pair) => groupOf.get(pair.query)!);
  for (const groupPairs of byGroup.values()) {
    const groupStored = [...new Set(groupPairs.map((p) => p.stored))];
    for (const text of groupStored) deleteEntry(scope, cache.keysOf(request(text, base)).exactKey);
    for (const pair of groupPairs) {
      for (const threshold of THRESHOLDS) {
        const hit = await cache.lookup(request(pair.query, workspaceAt(threshold)));
        if (!hit) continue;
        novel.set(threshold, novel.get(threshold)! + 1);
        if (threshold === DEFAULT_SEMANTIC_THRESHOLD) novelAtDefault.push({ similarity: hit.similarity, query: pair.query, served: servedText(hit) });
      }
    }
    groupStored.forEach(store);
  }
  close();

  const oracle = cosineOnly(pairs, storedTexts, groupOf);
  const n = pairs.length;
  const pct = (count: number, of = n) => (of === 0 ? "0.0" : ((100 * count) / of).toFixed(1));
  console.log(`\n## ${file.split("/").pop()}: ${n} queries, ${storedTexts.length} entries, ${byGroup.size} paraphrase groups (embedding ${embedSeconds.toFixed(0)} s)\n`);
  console.log(
    markdownTable(
      ["threshold", "correct hit %", "wrong hit %", "miss %", "wrong / hits %", "novel: wrong answer %", "cosine only: wrong / hits %", "cosine only: novel %"],
      THRESHOLDS.map((t) => {
        const { correct, wrong } = served.get(t)!;
        const plain = oracle.get(t)!;
        return [t.toFixed(2), pct(correct), pct(wrong), pct(n - correct - wrong), pct(wrong, correct + wrong), pct(novel.get(t)!), pct(plain.wrong, plain.correct + plain.wrong), pct(plain.novel)];
      }),
    ),
  );
  console.log(`\nGuard rejections at ${DEFAULT_SEMANTIC_THRESHOLD} (novel case, candidates above the threshold): ${guardReasons(pairs, storedTexts, groupOf)}`);
  for (const [title, rows] of [
    ["Counted wrong hits", wrongAtDefault],
    ["Novel-question hits", novelAtDefault],
  ] as const) {
    console.log(`\n${title} at ${DEFAULT_SEMANTIC_THRESHOLD}: ${rows.length}; a sample to read (labels are incomplete):\n`);
    for (const row of sample(rows, SAMPLE)) console.log(`- ${row.similarity.toFixed(3)}  "${clip(row.query)}"  ←  "${clip(row.served)}"`);
  }
}

/** Paraphrase group of each text: connected components of the pairs. */
function paraphraseGroups(pairs: Pair[]): Map<string, string> {
  const parent = new Map<string, string>();
  const find = (text: string): string => {
    const up = parent.get(text) ?? text;
    if (up === text) return text;
    const top = find(up);
    parent.set(text, top);
    return top;
  };
  for (const { stored, query } of pairs) parent.set(find(stored), find(query));
  return new Map(pairs.flatMap(({ stored, query }) => [stored, query]).map((text) => [text, find(text)]));
}

async function embedInBatches(texts: string[]) {
  for (let at = 0; at < texts.length; at += 256) {
    await vectors.embedMany(texts.slice(at, at + 256));
    process.stderr.write(`\rembedding ${Math.min(at + 256, texts.length)}/${texts.length}`);
  }
  process.stderr.write("\n");
}

/** The same curves for plain cosine similarity over every entry: no pre-filter, no guard. */
function cosineOnly(pairs: Pair[], storedTexts: string[], groupOf: Map<string, string>) {
  const result = new Map(THRESHOLDS.map((t) => [t, { correct: 0, wrong: 0, novel: 0 }]));
  for (const pair of pairs) {
    const query = vectors.peek(pair.query)!;
    const group = groupOf.get(pair.query);
    let best = -1;
    let bestRight = false;
    let bestOther = -1;
    for (const text of storedTexts) {
      const similarity = text === pair.query ? 1 : dot(query, vectors.peek(text)!);
      const right = groupOf.get(text) === group;
      if (similarity > best) [best, bestRight] = [similarity, right];
      if (!right && similarity > bestOther) bestOther = similarity;
    }
    for (const [t, counts] of result) {
      if (best >= t) counts[bestRight ? "correct" : "wrong"]++;
      if (bestOther >= t) counts.novel++;
    }
  }
  return result;
}

/** Why the guard turned candidates down, novel case: exact cosine over all entries outside the group. */
function guardReasons(pairs: Pair[], storedTexts: string[], groupOf: Map<string, string>): string {
  const counts = new Map<string, number>();
  for (const pair of pairs) {
    const query = vectors.peek(pair.query)!;
    const candidates = storedTexts
      .filter((text) => groupOf.get(text) !== groupOf.get(pair.query))
      .map((text) => ({ entry: text, prompt: text, similarity: dot(query, vectors.peek(text)!) }));
    for (const { reason } of chooseMatch(pair.query, candidates, DEFAULT_SEMANTIC_THRESHOLD, { readability: embedder.readability }).rejected) {
      const kind = reason.split(/[ "]/)[0]!;
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([kind, count]) => `${kind} ${count}`).join(", ") || "none";
}

function sample<T>(rows: T[], size: number): T[] {
  const step = Math.max(1, rows.length / size);
  return Array.from({ length: Math.min(size, rows.length) }, (_, i) => rows[Math.floor(i * step)]!);
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > 110 ? `${flat.slice(0, 107)}…` : flat;
}
