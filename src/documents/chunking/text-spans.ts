/**
 * Cutting text into sentences, lines and words as [start, end) spans of the original string,
 * so every piece keeps its exact position (and the whitespace between pieces is recoverable).
 */

export type Span = { start: number; end: number };

// "e.g." and "Dr." do not end sentences; neither do initials ("J. Smith"), handled separately.
const ABBREVIATIONS = new Set(["e.g", "i.e", "vs", "mr", "mrs", "ms", "dr", "prof", "fig", "figs", "no", "cf", "al", "approx", "inc", "ltd", "jr", "sr", "st", "sec", "eq", "vol", "pp"]);
const SENTENCE_END = /[.!?…]+["'”’)\]]*(?=\s)|\n/g;
const SENTENCE_START = /[\p{Lu}\p{N}"'“‘(\[•*-]/u;

/** Sentences: a terminator followed by whitespace and a capital, digit, quote or bullet; every line break also ends one. */
export function sentenceSpans(text: string): Span[] {
  const spans: Span[] = [];
  let start = skipSpaces(text, 0);
  for (const match of text.matchAll(SENTENCE_END)) {
    const isLineBreak = match[0] === "\n";
    const end = isLineBreak ? match.index : match.index + match[0].length;
    if (!isLineBreak) {
      const next = text[skipSpaces(text, end)];
      if (next !== undefined && !SENTENCE_START.test(next)) continue;
      if (match[0] === "." && endsWithAbbreviation(text.slice(start, match.index))) continue;
    }
    pushTrimmed(spans, text, start, end);
    start = skipSpaces(text, end);
  }
  pushTrimmed(spans, text, start, text.length);
  return spans;
}

/** Non-blank lines, indentation kept, trailing spaces dropped. */
export function lineSpans(text: string): Span[] {
  const spans: Span[] = [];
  let start = 0;
  for (const line of text.split("\n")) {
    if (line.trim() !== "") spans.push({ start, end: start + line.trimEnd().length });
    start += line.length + 1;
  }
  return spans;
}

export function wordSpans(text: string): Span[] {
  return [...text.matchAll(/\S+/g)].map((match) => ({ start: match.index, end: match.index + match[0].length }));
}

function endsWithAbbreviation(textBeforeDot: string): boolean {
  const word = /([\p{L}.]+)$/u.exec(textBeforeDot)?.[1];
  if (!word) return false;
  return word.length === 1 || ABBREVIATIONS.has(word.toLowerCase());
}

function skipSpaces(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i])) i++;
  return i;
}

function pushTrimmed(spans: Span[], text: string, start: number, end: number): void {
  let trimmedEnd = end;
  while (trimmedEnd > start && /\s/.test(text[trimmedEnd - 1])) trimmedEnd--;
  if (trimmedEnd > start) spans.push({ start, end: trimmedEnd });
}
