/**
 * Section numbers at the start of headings: "3.2.1 Title", "2. Scope", "A.1 Annex",
 * "Chapter 4 Results", "Appendix B", "Part II", "IV. Discussion".
 */

// A 1-3 digit number, or a capital letter that must be followed by dotted digits ("A.1"),
// so "A Tale of Two Cities" is not read as section A.
const DOTTED = /^(\d{1,3}(?:\.\d{1,3})*|[A-Z](?:\.\d{1,3})+)\.?\s+(\S.*)$/;
// A named division: its number may be a numeral, a letter or a roman numeral; the title may
// follow on the same line or stand on the next one.
const NAMED = /^(?:chapter|part|appendix|annex)\s+(\d{1,3}|[A-Z]|[IVXLC]{1,7})(?:[.:]\s*|\s+|$)(.*)$/i;
// Roman numerals only with a dot ("IV. Discussion"), so "I think" stays a sentence.
const ROMAN = /^([IVXLC]{1,7})\.\s+(\S.*)$/;

export type NumberedText = { sectionNumber: string | null; title: string };

/** Split a heading's leading section number from its title; null number when there is none. */
export function splitSectionNumber(text: string): NumberedText {
  const trimmed = text.trim();
  const match = DOTTED.exec(trimmed) ?? NAMED.exec(trimmed) ?? ROMAN.exec(trimmed);
  if (!match) return { sectionNumber: null, title: trimmed };
  return { sectionNumber: match[1], title: match[2].trim() };
}

/** Depth of a section number: "3", "B" and "IV" are 1, "3.2.1" is 3. */
export function sectionDepth(sectionNumber: string): number {
  return sectionNumber.split(".").length;
}

/**
 * Whether a lone line of running text (PDF, plain text) reads as a numbered heading rather than
 * a numbered sentence: a capitalised title of at most 12 words and 100 characters that does not
 * end like a sentence or a list item ("Chapter 4" alone counts: its title is on the next line).
 */
export function isNumberedHeadingLine(line: string): boolean {
  const { sectionNumber, title } = splitSectionNumber(line);
  if (sectionNumber === null || line.length > 100) return false;
  if (title === "" && NAMED.test(line.trim())) return true;
  // Capitalised, or in a script without case (CJK).
  if (!/^[\p{Lu}\p{Lo}]/u.test(title) || !/\p{L}{2}/u.test(title)) return false;
  // A question is a fine heading ("1.2 What is this spec?"); a full stop or colon ends a sentence or item.
  if (/[.,;:!]$/.test(title)) return false;
  return title.split(/\s+/).length <= 12;
}
