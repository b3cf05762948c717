/**
 * The two rankings a search fuses, each over the candidate chunks only (so a filter never
 * starves a ranking of results), best first.
 *
 * Vector: both databases rank the candidates by Hamming distance between sign bits and re-score
 * the nearest PREFILTER with exact cosine similarity from the stored float vectors (docs/search.md
 * measures how often that misses an exact top-10 chunk). SQLite scans the workspace's sign bits
 * in the server's memory, one partition per variant (vector-index.ts); PostgreSQL, shared by several instances, in SQL
 * (chunk_embeddings.sign_bits, migration postgres/0009).
 *
 * Keyword: FTS5 (BM25) on SQLite, the tsvector column and its GIN index (ts_rank_cd) on PostgreSQL.
 */
import { dot, floatsFromBlob } from "../../cache/vector-codec";
import type { WorkspaceScope } from "../../tenancy/scope";
import type { CandidateChunks } from "./candidates";
import { candidateSeqs } from "./candidates";
import { fts5Match } from "./query-terms";
import { nearestChunks } from "./vector-index";

export type Ranked = { seq: number; similarity?: number };

/** Chunks re-scored exactly after the sign-bit prefilter. */
export const PREFILTER = 1000;

export async function vectorRanking(scope: WorkspaceScope, candidates: CandidateChunks, vector: Float32Array, depth: number, prefilter = PREFILTER): Promise<Ranked[]> {
  const index = scope.signBits;
  if (!index) return postgresVectorRanking(scope, candidates, vector, depth, prefilter);
  const seqs = candidates.narrowed ? await candidateSeqs(scope, candidates) : undefined;
  const nearest = await nearestChunks(scope, index, candidates.variants, vector, Math.max(prefilter, depth), seqs);
  if (nearest.length === 0) return [];
  // CROSS JOIN keeps the plan "each seq, then its row" (primary-key reads).
  // Flagged chunks are rare: dropped here rather than by narrowing every search to SQL-read candidates.
  const rows = await scope.all<{ seq: number; embedding: Uint8Array }>(
    `select e.chunk_seq as seq, e.embedding from json_each($seqs) as nearest cross join chunk_embeddings e on e.chunk_seq = nearest.value
      ${candidates.excludeFlagged ? "join document_chunks c on c.seq = e.chunk_seq and c.injection_flagged = 0" : ""}
      where e.workspace_id = $workspace_id`,
    { seqs: JSON.stringify(nearest) },
  );
  return rescored(vector, rows, depth);
}

/** The `depth` rows most similar to `vector` (cosine: the stored vectors are L2-normalised), most similar first. */
function rescored(vector: Float32Array, rows: { seq: number; embedding: Uint8Array }[], depth: number): Ranked[] {
  return rows
    .map((row) => ({ seq: row.seq, similarity: dot(vector, floatsFromBlob(row.embedding)) }))
    .sort((a, b) => b.similarity - a.similarity || a.seq - b.seq)
    .slice(0, depth);
}

/**
 * The query's sign bits as chunk_sign_bits (migration postgres/0009) spells a stored vector's: one
 * character per component, '1' when its float32 sign bit is clear (the top bit of its last byte).
 */
export function signBitString(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
  return Array.from({ length: vector.length }, (_, i) => (bytes[4 * i + 3]! < 128 ? "1" : "0")).join("");
}

async function postgresVectorRanking(scope: WorkspaceScope, candidates: CandidateChunks, vector: Float32Array, depth: number, prefilter: number): Promise<Ranked[]> {
  const rows = await scope.all<{ seq: number; embedding: Uint8Array }>(
    `with nearest as materialized (
       select e.chunk_seq from chunk_embeddings e
        where e.workspace_id = $workspace_id and e.chunk_seq in (${candidates.sql})
        order by bit_count(e.sign_bits # $bits::text::bit(384)) limit $prefilter
     )
     select e.chunk_seq as seq, e.embedding from nearest join chunk_embeddings e on e.chunk_seq = nearest.chunk_seq and e.workspace_id = $workspace_id`,
    { ...candidates.params, bits: signBitString(vector), prefilter: Math.max(prefilter, depth) },
  );
  return rescored(vector, rows, depth);
}

export async function keywordRanking(scope: WorkspaceScope, candidates: CandidateChunks, terms: string[], depth: number): Promise<Ranked[]> {
  if (terms.length === 0) return [];
  if (scope.dialect === "postgres") {
    // Each term a phrase query of its words (the 'english' configuration), any of them.
    const params = Object.fromEntries(terms.map((term, i) => [`term_${i}`, term]));
    const tsquery = terms.map((_, i) => `phraseto_tsquery('english', $term_${i})`).join(" || ");
    return scope.all<Ranked>(
      `select c.seq from document_chunks c, (select ${tsquery} as q) as query
        where c.search_text @@ query.q and ${candidates.where}
        order by ts_rank_cd(c.search_text, query.q) desc, c.seq limit $depth`,
      { ...candidates.params, ...params, depth },
    );
  }
  // Each match's chunk row is checked by primary key, so the cost follows the matches, not the
  // candidates: building the set of 100,000 candidate seqs first cost ~110–200 ms a query. CROSS
  // JOIN keeps FTS5 the outer loop; inner, it would run the whole match once per chunk.
  return scope.all<Ranked>(
    `select s.rowid as seq from chunk_search s cross join document_chunks c on c.seq = s.rowid
      where chunk_search match $match and ${candidates.where}
      order by s.rank, s.rowid limit $depth`,
    { ...candidates.params, match: fts5Match(terms), depth },
  );
}
