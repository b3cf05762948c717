import { expect, test } from "bun:test";
import { fts5Match, MAX_TERMS, queryTerms } from "../../src/documents/search/query-terms";

test("words and quoted phrases become terms, trimmed of surrounding punctuation, once each", () => {
  expect(queryTerms(`Rotate "api keys" weekly, rotate (weekly)!`)).toEqual(["Rotate", "api keys", "weekly", "rotate"]);
  expect(queryTerms("E1234-X parse_chunk_metadata()")).toEqual(["E1234-X", "parse_chunk_metadata"]);
});

test("unquoted English stop words are left out, quoted ones kept", () => {
  expect(queryTerms("How do I reset the backup schedule with the CLI?")).toEqual(["reset", "backup", "schedule", "CLI"]);
  expect(queryTerms(`"to be or not to be" and the rest`)).toEqual(["to be or not to be", "rest"]);
});

test("a query of stop words alone keeps them (otherwise it would match nothing)", () => {
  expect(queryTerms("What is it?")).toEqual(["What", "is", "it"]);
});

test("at most MAX_TERMS terms, counted after the stop words are gone", () => {
  const words = Array.from({ length: 50 }, (_, i) => `the word${i}`).join(" ");
  const terms = queryTerms(words);
  expect(terms).toHaveLength(MAX_TERMS);
  expect(terms[0]).toBe("word0");
});

test("FTS5 match: each term a quoted phrase, inner quotes doubled", () => {
  expect(fts5Match(["api keys", `say "hi"`])).toBe(`"api keys" OR "say ""hi"""`);
});
