/**
 * bench:dedup — speed of version dedup and the share of embeddings it saves.
 *
 * 1. Times dedupVersion on a generated ~500-chunk version against its ~500-chunk parent
 *    (≈ 9 sentences per chunk, realistic mixed edits), p50/p95 over several runs, next to a
 *    baseline measured in the same runs: merely normalising and hashing every chunk text of
 *    both versions, the least any dedup must do. The ratio says what the sentence index,
 *    MinHash and rules cost on top of that.
 * 2. For each edit scenario of the test corpus, how many chunk embeddings the recommendations
 *    avoid (reuse) or leave to the caller's judgement (consider_reuse).
 * Prints markdown tables.
 */
import { buildParentIndex, dedupVersion, normaliseText, summarise } from '../../src/dedup';
import {
  entirelyNewDocument,
  largeEditedVersion,
  lightlyRewrittenSection,
  movedParagraph,
  oneSentenceChangedPerChunk,
  paragraphInsertedAtTop,
  unchangedDocument,
  type VersionPair,
} from '../../test/dedup/fixtures/scenarios';

const WARMUP_RUNS = 3;
const TIMED_RUNS = 25;

function percentile(sortedMs: readonly number[], p: number): number {
  return sortedMs[Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1)];
}

function timeRuns(run: () => void): number[] {
  for (let i = 0; i < WARMUP_RUNS; i++) run();
  const ms: number[] = [];
  for (let i = 0; i < TIMED_RUNS; i++) {
    const start = performance.now();
    run();
    ms.push(performance.now() - start);
  }
  return ms.sort((a, b) => a - b);
}

function normaliseAndHashAll(pair: VersionPair): void {
  for (const chunk of [...pair.parents, ...pair.children]) Bun.hash(normaliseText(chunk.text));
}

const fmt = (ms: number) => ms.toFixed(2);
const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;

// 1. Speed
const large = largeEditedVersion(7);
const sentences = summarise(dedupVersion(large.children, large.parents), null).total_sentences;
const dedupMs = timeRuns(() => dedupVersion(large.children, large.parents));
const indexMs = timeRuns(() => buildParentIndex(large.parents));
const baselineMs = timeRuns(() => normaliseAndHashAll(large));

console.log(`## dedupVersion speed\n`);
console.log(`${large.children.length} child chunks vs ${large.parents.length} parent chunks (~${Math.round(sentences / large.children.length)} sentences per chunk), ${TIMED_RUNS} runs after ${WARMUP_RUNS} warm-up runs, Bun ${Bun.version}\n`);
console.log('| measure | p50 ms | p95 ms |');
console.log('|---|---:|---:|');
console.log(`| dedupVersion (index + all chunks) | ${fmt(percentile(dedupMs, 50))} | ${fmt(percentile(dedupMs, 95))} |`);
console.log(`| of which buildParentIndex | ${fmt(percentile(indexMs, 50))} | ${fmt(percentile(indexMs, 95))} |`);
console.log(`| baseline: normalise + hash every chunk text | ${fmt(percentile(baselineMs, 50))} | ${fmt(percentile(baselineMs, 95))} |`);
console.log(`| ratio dedupVersion / baseline (p50) | ${(percentile(dedupMs, 50) / percentile(baselineMs, 50)).toFixed(1)}× | |`);

// 2. Embeddings avoided
const scenarios: [string, VersionPair][] = [
  ['unchanged document', unchangedDocument(1)],
  ['one sentence changed per chunk (20…2 sentences)', oneSentenceChangedPerChunk(2, [20, 10, 6, 5, 4, 3, 2])],
  ['paragraph moved', movedParagraph(3)],
  ['paragraph inserted at top (fixed-size chunks)', paragraphInsertedAtTop(4)],
  ['section lightly reworded', lightlyRewrittenSection(5)],
  ['entirely new document', entirelyNewDocument(6)],
  ['mixed edits, ~500 chunks', large],
];
console.log(`\n## Embeddings avoided per edit scenario\n`);
console.log('| scenario | chunks | exact | high | partial | mixed | fuzzy | new | sentences reused | reuse (avoided) | consider_reuse | regenerate |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const [name, pair] of scenarios) {
  const s = summarise(dedupVersion(pair.children, pair.parents), 'parent');
  const b = s.chunk_breakdown;
  const r = s.embedding_recommendations;
  console.log(
    `| ${name} | ${s.total_chunks} | ${b.exact} | ${b.high_reuse} | ${b.partial_reuse} | ${b.mixed_content} | ${b.fuzzy} | ${b.new} | ` +
      `${pct(s.reused_sentences, s.total_sentences)} | ${pct(r.reuse, s.total_chunks)} | ${pct(r.consider_reuse, s.total_chunks)} | ${pct(r.regenerate, s.total_chunks)} |`,
  );
}
