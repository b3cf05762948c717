/**
 * A search query as keyword terms. Quoted text stays one phrase; every other whitespace-separated
 * word is a term of its own, trimmed of the punctuation around it. An identifier such as E1234-X
 * or parse_chunk_metadata is one term: both full-text engines split it into its parts, and the
 * term is matched as a phrase, so the parts must appear together and in order. A chunk matches
 * when it has any term; the engines' ranking (BM25 on SQLite, ts_rank_cd on PostgreSQL) favours
 * chunks with more, and rarer, terms.
 *
 * Unquoted English stop words ("how", "the", "with") are left out unless the query has nothing
 * else: nearly every chunk holds them, so they add no ranking signal, yet as alternatives of an
 * OR they made every chunk a match to rank (and pulled chunks up for sharing "the" with the
 * question). PostgreSQL's 'english' configuration drops its own list of them anyway.
 */
import { eng as englishStopWords } from "stopword";

/** Terms per query: past this a query is prose, and its first words are enough for the keyword side. */
export const MAX_TERMS = 32;

const WORD_CHARACTER = /[\p{L}\p{N}]/u;
const STOP_WORDS = new Set(englishStopWords);

export function queryTerms(query: string): string[] {
  const terms = new Map<string, { text: string; quoted: boolean }>();
  for (const match of query.matchAll(/"([^"]*)"|(\S+)/g)) {
    const quoted = match[1] !== undefined;
    const text = (match[1] ?? match[2]!.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")).trim();
    if (WORD_CHARACTER.test(text) && !terms.has(text)) terms.set(text, { text, quoted });
  }
  const all = [...terms.values()];
  const content = all.filter((term) => term.quoted || !STOP_WORDS.has(term.text.toLowerCase()));
  return (content.length > 0 ? content : all).slice(0, MAX_TERMS).map((term) => term.text);
}

/** An FTS5 MATCH expression: each term a quoted string (a phrase of its tokens), any of them. */
export function fts5Match(terms: string[]): string {
  return terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(" OR ");
}
