/**
 * Sentence splitter for chunk text (prose, Markdown, extracted PDF/DOCX text, code).
 *
 * Returns trimmed sentences in document order; line breaks inside a sentence become spaces.
 * Deduplication only needs the split to be deterministic, but the chunker may reuse it, so it
 * tries to be right:
 *  - Lines are classified first. A blank line ends a paragraph; other lines of a paragraph are
 *    soft wraps and are joined (PDF and Markdown both hard-wrap prose).
 *  - Headings, table rows (leading "|" or a tab) and every line inside a ``` / ~~~ fence are one
 *    unit each: they have no sentence punctuation, and a row or code line is the unit that gets
 *    reused. Fences, table separator rows and horizontal rules are layout, not text: dropped.
 *  - A list item or blockquote starts a new paragraph, so items never run into each other.
 *  - Inside a paragraph, a boundary is . ! ? … (plus closing quotes/brackets) followed by
 *    whitespace and a character that is not a lower-case letter; 。！？ split without a space.
 *    A single "." does not split after a known abbreviation ("Dr.", "e.g.", "vs."), a
 *    number-taking abbreviation before a digit ("Fig. 3", "No. 5"), a capital initial ("J."),
 *    or an initialism ("U.S.", "p.m."). Decimals ("3.14") never split: no whitespace follows.
 * Known trade-off: a sentence that really ends with an initial or initialism ("Plan B. Then")
 * stays joined to the next one.
 */

type Block = { kind: 'unit' | 'prose'; text: string };

const FENCE = /^(```|~~~)/;
const HEADING = /^#{1,6}\s/;
const TABLE_SEPARATOR = /^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$/;
const RULE_LINE = /^(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,}|=+)$/;
const LIST_ITEM = /^(?:[-*+•◦▪‣]|\d{1,3}[.)]|[a-z][.)])\s+/;
const BLOCKQUOTE = /^>/;

const ALWAYS_ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'rev', 'gen', 'hon', 'capt', 'col', 'lt', 'sgt',
  'e.g', 'i.e', 'cf', 'vs', 'viz', 'approx', 'ca', 'al', 'esp', 'incl', 'resp',
]);
/** Only abbreviations when a number follows: "see Fig. 3" but "the answer is no. Then". */
const NUMBER_ABBREVIATIONS = new Set(['no', 'nos', 'vol', 'p', 'pp', 'fig', 'figs', 'eq', 'eqs', 'ch', 'sec', 'art', 'ref']);

const BOUNDARY = /[.!?…]+["'”’»)\]]*(?=\s)|[。！？]+["'”’»)\]」』]*/g;
const LOWERCASE_START = /^\p{Ll}/u;
const DIGIT_START = /^\d/;
const CAPITAL_INITIAL = /^\p{Lu}$/u;
const INITIALISM = /^(?:\p{L}\.)+\p{L}$/u;

export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const block of toBlocks(text)) {
    if (block.kind === 'unit') sentences.push(block.text);
    else sentences.push(...splitProse(block.text));
  }
  return sentences;
}

function toBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let inQuote = false;
  let inFence = false;
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ kind: 'prose', text: paragraph.join(' ') });
    paragraph = [];
    inQuote = false;
  };

  for (const raw of text.split(/\r\n?|\n/)) {
    const line = raw.trim();
    if (FENCE.test(line)) {
      flush();
      inFence = !inFence;
    } else if (inFence) {
      if (line) blocks.push({ kind: 'unit', text: line });
    } else if (!line || RULE_LINE.test(line) || TABLE_SEPARATOR.test(line)) {
      flush();
    } else if (HEADING.test(line) || line.startsWith('|') || raw.includes('\t')) {
      flush();
      blocks.push({ kind: 'unit', text: line });
    } else if (BLOCKQUOTE.test(line)) {
      // Consecutive quote lines are one soft-wrapped paragraph; keep only the first marker.
      if (inQuote) paragraph.push(line.replace(/^>\s?/, ''));
      else {
        flush();
        paragraph.push(line);
        inQuote = true;
      }
    } else {
      if (LIST_ITEM.test(line) || inQuote) flush();
      paragraph.push(line);
    }
  }
  flush();
  return blocks;
}

function splitProse(paragraph: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  for (const match of paragraph.matchAll(BOUNDARY)) {
    const end = match.index + match[0].length;
    if (!isBoundary(paragraph, match.index, match[0], end)) continue;
    pushTrimmed(sentences, paragraph.slice(start, end));
    start = end;
  }
  pushTrimmed(sentences, paragraph.slice(start));
  return sentences;
}

function isBoundary(paragraph: string, at: number, terminator: string, end: number): boolean {
  if (!/^[.!?…]/.test(terminator)) return true; // CJK full stops need no following space
  const next = paragraph.slice(end).trimStart();
  if (next === '' || LOWERCASE_START.test(next)) return false;
  if (!/^\.(?![.])/.test(terminator)) return true; // ! ? … and "..." are not abbreviations
  return !isAbbreviation(wordBefore(paragraph, at), next);
}

function wordBefore(paragraph: string, at: number): string {
  let i = at;
  while (i > 0 && !/\s/.test(paragraph[i - 1])) i--;
  return paragraph.slice(i, at).replace(/^[("'“‘[]+/, '');
}

function isAbbreviation(word: string, next: string): boolean {
  const lower = word.toLowerCase();
  return (
    ALWAYS_ABBREVIATIONS.has(lower) ||
    (NUMBER_ABBREVIATIONS.has(lower) && DIGIT_START.test(next)) ||
    CAPITAL_INITIAL.test(word) ||
    INITIALISM.test(word)
  );
}

function pushTrimmed(sentences: string[], text: string): void {
  const trimmed = text.trim();
  if (trimmed) sentences.push(trimmed);
}
