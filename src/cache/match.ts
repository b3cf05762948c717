import type { Readability } from "../embeddings/readability";
import { guardMatch, promptFacts, type GuardCheck, type PromptFacts } from "./guard";

/** A stored entry the semantic search found near the query, with its exact cosine similarity. */
export type Candidate<E> = { entry: E; similarity: number; prompt: string };

export type MatchDecision<E> = { hit: Candidate<E> | undefined; rejected: { candidate: Candidate<E>; check: GuardCheck; reason: string }[] };

/**
 * The semantic hit rule, used by the server and by `npm run eval:cache` alike: the most similar
 * candidate at or above the threshold whose answer-determining facts agree with the query's
 * (guard.ts). A candidate the guard rejects is skipped, not fatal: a less similar one that
 * agrees may still answer. `readability` (the embedding model's) lets the guard compare what the
 * encoder cannot read; `factsOf` and `queryFacts` let the server reuse facts it computed before
 * (of entries it stored or verified, of the query while the encoder ran).
 */
export function chooseMatch<E>(
  query: string,
  candidates: Candidate<E>[],
  threshold: number,
  {
    readability,
    factsOf = (candidate) => promptFacts(candidate.prompt, readability),
    queryFacts = () => promptFacts(query, readability),
  }: { readability?: Readability; factsOf?: (candidate: Candidate<E>) => PromptFacts; queryFacts?: () => PromptFacts } = {},
): MatchDecision<E> {
  const rejected: MatchDecision<E>["rejected"] = [];
  const ranked = candidates.filter((c) => c.similarity >= threshold).sort((a, b) => b.similarity - a.similarity);
  if (ranked.length === 0) return { hit: undefined, rejected };
  const facts = queryFacts();
  for (const candidate of ranked) {
    const verdict = guardMatch(facts, factsOf(candidate));
    if (verdict.pass) return { hit: candidate, rejected };
    rejected.push({ candidate, check: verdict.check, reason: verdict.reason });
  }
  return { hit: undefined, rejected };
}
