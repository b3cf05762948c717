/**
 * POST /api/documents/search without HTTP: the query's vector and keyword rankings over the
 * chunks the filters leave, fused by reciprocal rank (docs/search.md).
 */
import { inArray } from "drizzle-orm";
import type { WorkspaceScope } from "../../tenancy/scope";
import type { SearchRequest } from "../model";
import { documentChunks } from "../schema";
import { chunkView } from "../views";
import { candidateChunks, searchedVariants } from "./candidates";
import { fuseRankings } from "./fusion";
import { queryTerms } from "./query-terms";
import { keywordRanking, vectorRanking } from "./rankings";

/** The query's vector, embedded at request priority (through the workspace's memo of recent texts). */
export type EmbedQuery = (text: string) => Promise<Float32Array>;

/** How deep each ranking is read before fusion: a chunk ranked below this by one signal gets nothing from it. */
export const rankingDepth = (limit: number) => Math.max(50, 2 * limit);

export async function searchChunks(scope: WorkspaceScope, request: SearchRequest, embedQuery: EmbedQuery) {
  const { query, limit, filters, weights, include_flagged: includeFlagged } = request;
  const depth = rankingDepth(limit);
  const vector = weights.vector > 0 ? await embedQuery(query) : undefined;
  const variants = await searchedVariants(scope, filters);
  if (variants.length === 0) return { results: [], query, limit };
  const candidates = candidateChunks(scope, variants, filters, includeFlagged);
  const [byVector, byKeyword] = await Promise.all([
    vector ? vectorRanking(scope, candidates, vector, depth) : [],
    weights.keyword > 0 ? keywordRanking(scope, candidates, queryTerms(query), depth) : [],
  ]);
  const top = fuseRankings([
    { signal: "vector", weight: weights.vector, ranked: byVector },
    { signal: "keyword", weight: weights.keyword, ranked: byKeyword },
  ]).slice(0, limit);
  if (top.length === 0) return { results: [], query, limit };
  const rows = new Map((await scope.select(documentChunks, inArray(documentChunks.seq, top.map((hit) => hit.seq)))).map((row) => [row.seq, row]));
  const variantById = new Map(variants.map((variant) => [variant.variantId, variant]));
  const results = top.flatMap((hit) => {
    const row = rows.get(hit.seq);
    // A chunk deleted since it was ranked (its document deleted meanwhile) is left out.
    if (!row) return [];
    const variant = variantById.get(row.variantId)!;
    return [
      {
        ...chunkView(row, false),
        score: hit.score,
        matched: hit.matched,
        vector_similarity: hit.similarity,
        document_id: variant.documentId,
        version_id: variant.versionId,
        variant_id: variant.variantId,
      },
    ];
  });
  return { results, query, limit };
}
