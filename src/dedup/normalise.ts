/**
 * Text normalisation shared by chunk-level and sentence-level matching.
 *
 * Steps, in order (each one removes a difference that re-exporting or re-chunking the same
 * text commonly introduces, without merging texts a reader would call different):
 *  1. Unicode NFKC: full-width forms, ligatures and compatibility characters fold to one spelling.
 *  2. Typographic quotes and dashes fold to ASCII ('“ ” ‘ ’' → '" \'', '– —' → '-'): word
 *     processors "smarten" them on save.
 *  3. Zero-width characters and soft hyphens are removed (invisible, left by PDF/HTML extraction).
 *  4. Lower-case (locale-independent).
 *  5. Whitespace runs (including line breaks) collapse to one space.
 *  6. Punctuation, symbols and spaces at both ends are stripped, so Markdown markers
 *     ("## ", "- ", "| ", "**") and a final full stop do not decide equality.
 * Inner punctuation is kept: "3.14" and "3,14" stay different.
 */

const QUOTES_AND_DASHES = /[\u2018\u2019\u201A\u201B\u2032\u201C\u201D\u201E\u201F\u2033\u2010-\u2015\u2212]/g;
const FOLDED: Record<string, string> = {
  '\u2018': "'", '\u2019': "'", '\u201A': "'", '\u201B': "'", '\u2032': "'",
  '\u201C': '"', '\u201D': '"', '\u201E': '"', '\u201F': '"', '\u2033': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
};
const INVISIBLE = /[\u00AD\u200B-\u200D\u2060\uFEFF]/g;
const WHITESPACE_RUN = /\s+/g; // JS \s already covers Unicode spaces; no /u keeps it fast
const EDGE_PUNCTUATION = /^[\p{P}\p{S}\s]+|[\p{P}\p{S}\s]+$/gu;

export function normaliseText(text: string): string {
  return text
    .normalize('NFKC')
    .replace(QUOTES_AND_DASHES, (c) => FOLDED[c] ?? c)
    .replace(INVISIBLE, '')
    .toLowerCase()
    .replace(WHITESPACE_RUN, ' ')
    .replace(EDGE_PUNCTUATION, '');
}
