/**
 * A search query as keyword terms. Quoted text stays one phrase; every other whitespace-separated
 * word is a term of its own, trimmed of the punctuation around it. An identifier such as E1234-X
 * or parse_chunk_metadata is one term: both full-text engines split it into its parts, and the
 * term is matched as a phrase, so the parts must appear together and in order. A chunk matches
 * when it has any term; the engines' ranking (BM25 on SQLite, ts_rank_cd on PostgreSQL) favours
 * chunks with more, and rarer, terms.
 */

/** Terms per query: past this a query is prose, and its first words are enough for the keyword side. */
export const MAX_TERMS = 32;

const WORD_CHARACTER = /[\p{L}\p{N}]/u;

export function queryTerms(query: string): string[] {
  const terms: string[] = [];
  for (const match of query.matchAll(/"([^"]*)"|(\S+)/g)) {
    const term = (match[1] ?? match[2]!.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")).trim();
    if (WORD_CHARACTER.test(term) && !terms.includes(term)) terms.push(term);
    if (terms.length === MAX_TERMS) break;
  }
  return terms;
}

/** An FTS5 MATCH expression: each term a quoted string (a phrase of its tokens), any of them. */
export function fts5Match(terms: string[]): string {
  return terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(" OR ");
}
