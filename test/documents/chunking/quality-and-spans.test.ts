import { describe, expect, test } from "bun:test";
import { qualityScore } from "../../../src/documents/chunking/quality-score.ts";
import { sentenceSpans } from "../../../src/documents/chunking/text-spans.ts";

const sentences = (text: string) => sentenceSpans(text).map((span) => text.slice(span.start, span.end));

describe("quality score", () => {
  const prose = "The committee reviewed the annual budget and approved the new spending plan for schools, roads and parks in the district.";

  test("clean prose of normal length scores 1", () => {
    expect(qualityScore(prose, 24, "text")).toBe(1);
  });

  test("short chunks, garbage characters, symbol soup and broken words score lower", () => {
    expect(qualityScore("Contents", 1, "text")).toBeCloseTo(0.425, 3);
    expect(qualityScore(`${prose} \uFFFD\uFFFD\uFFFD`, 24, "text")).toBeLessThan(0.9);
    expect(qualityScore("#### ==== //// **** ;;;; {{{{ }}}} ~~~~ @@@@ and text", 24, "text")).toBeLessThan(0.5);
    expect(qualityScore("The com- mittee re- viewed the b u d g e t and the plan for the schools this year", 24, "text")).toBeLessThanOrEqual(0.5);
  });

  test("code and tables are not penalised for symbols", () => {
    const code = "if (a[i] !== b[i]) { return -1; } else { x = (y * z) / 2; } // {}[]();";
    expect(qualityScore(code, 24, "code")).toBe(1);
    expect(qualityScore("| a | b |\n| --- | --- |\n| 1 | 2 |", 24, "table")).toBe(1);
  });
});

describe("sentence spans", () => {
  test("split at terminators followed by a capital, and at line breaks", () => {
    expect(sentences("First one. Second one! Third?\nFourth line")).toEqual(["First one.", "Second one!", "Third?", "Fourth line"]);
  });

  test("do not split at abbreviations, initials, decimals or a lower-case continuation", () => {
    expect(sentences("See e.g. Fig. 3 by J. Smith, which costs 3.5 dollars. It works. ok then")).toEqual([
      "See e.g. Fig. 3 by J. Smith, which costs 3.5 dollars.",
      "It works. ok then",
    ]);
  });

  test("spans are exact offsets into the text", () => {
    const text = "  Alpha beta.   Gamma delta.  ";
    expect(sentenceSpans(text)).toEqual([
      { start: 2, end: 13 },
      { start: 16, end: 28 },
    ]);
  });
});
