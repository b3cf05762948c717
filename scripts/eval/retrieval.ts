/**
 * eval:retrieval — POST /api/documents/search on generated manuals with labelled questions
 * (scripts/eval/retrieval-corpus.ts): recall@5, recall@10 and MRR (over the first 10) of
 * vector-only, keyword-only and hybrid ranking side by side, overall and per question kind.
 * A question is answered at rank r when the r-th result holds its gold fact sentence.
 *
 * Runs a real Sieve (uploads through HTTP, the real model); --postgres runs it on a throw-away
 * PostgreSQL cluster instead of SQLite.
 *
 *   bun scripts/eval/retrieval.ts [--manuals 12] [--seed 7] [--chunk-size 96] [--postgres]
 */
import { parseArgs } from "node:util";
import { DocumentsClient } from "../../test/documents/api-client";
import { retrievalCorpus, type Question } from "./retrieval-corpus";

const { values: args } = parseArgs({
  options: {
    manuals: { type: "string", default: "12" },
    seed: { type: "string", default: "7" },
    "chunk-size": { type: "string", default: "96" },
    postgres: { type: "boolean", default: false },
  },
});
if (args.postgres) process.env.SIEVE_TEST_DATABASE = "postgres";
const { startSieve } = await import("../../test/support/sieve");
const { stopSuiteCluster } = await import("../../test/support/suite-postgres");

const MODES = { vector: { vector: 1, keyword: 0 }, keyword: { vector: 0, keyword: 1 }, hybrid: { vector: 1, keyword: 1 } } as const;
type Mode = keyof typeof MODES;

const corpus = retrievalCorpus(Number(args.seed), Number(args.manuals));
const sieve = await startSieve();
try {
  const client = new DocumentsClient(sieve.url, await sieve.tenant("eval"));
  for (const manual of corpus.manuals) await client.uploadCompleted(manual.filename, manual.markdown, { chunk_size: Number(args["chunk-size"]) });

  /** 1-based rank of the first result holding the gold fact within the first 10; 0 when none does. */
  async function rankOf(question: Question, mode: Mode): Promise<number> {
    const response = await client.post("/api/documents/search", { query: question.query, limit: 10, weights: MODES[mode] });
    if (!response.ok) throw new Error(`search ${JSON.stringify(question.query)}: ${response.status} ${await response.text()}`);
    const { results } = (await response.json()) as { results: { text: string }[] };
    return results.findIndex((result) => result.text.includes(question.gold)) + 1;
  }

  const ranks = new Map<Mode, number[]>(Object.keys(MODES).map((mode) => [mode as Mode, []]));
  for (const question of corpus.questions) for (const mode of Object.keys(MODES) as Mode[]) ranks.get(mode)!.push(await rankOf(question, mode));

  const metrics = (values: number[]) => ({
    "recall@5": values.filter((rank) => rank > 0 && rank <= 5).length / values.length,
    "recall@10": values.filter((rank) => rank > 0).length / values.length,
    MRR: values.reduce((sum, rank) => sum + (rank > 0 ? 1 / rank : 0), 0) / values.length,
  });
  const kinds = ["all", "paraphrase", "identifier", "phrase"] as const;
  console.log(`eval:retrieval — ${corpus.manuals.length} manuals, ${corpus.questions.length} questions, chunk_size ${args["chunk-size"]}, ${args.postgres ? "PostgreSQL" : "SQLite"}\n`);
  console.log(["questions", "n", "metric", ...Object.keys(MODES)].map((cell) => cell.padEnd(11)).join(""));
  for (const kind of kinds) {
    const picked = corpus.questions.map((question, i) => (kind === "all" || question.kind === kind ? i : -1)).filter((i) => i >= 0);
    const byMode = (Object.keys(MODES) as Mode[]).map((mode) => metrics(picked.map((i) => ranks.get(mode)![i]!)));
    for (const metric of ["recall@5", "recall@10", "MRR"] as const) {
      console.log([kind, String(picked.length), metric, ...byMode.map((m) => m[metric].toFixed(3))].map((cell) => cell.padEnd(11)).join(""));
    }
  }
} finally {
  await sieve.close();
  await stopSuiteCluster();
}
