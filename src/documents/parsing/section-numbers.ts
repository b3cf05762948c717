/** Dotted section numbers at the start of headings: "3.2.1 Title", "2. Scope", "A.1 Annex". */

// A 1-3 digit number, or a capital letter that must be followed by dotted digits ("A.1"),
// so "A Tale of Two Cities" is not read as section A.
const NUMBERED_TEXT = /^(\d{1,3}(?:\.\d{1,3})*|[A-Z](?:\.\d{1,3})+)\.?\s+(\S.*)$/;

export type NumberedText = { sectionNumber: string | null; title: string };

/** Split a heading's leading section number from its title; null number when there is none. */
export function splitSectionNumber(text: string): NumberedText {
  const match = NUMBERED_TEXT.exec(text.trim());
  if (!match) return { sectionNumber: null, title: text.trim() };
  return { sectionNumber: match[1], title: match[2] };
}

/** Depth of a section number: "3" is 1, "3.2.1" is 3. */
export function sectionDepth(sectionNumber: string): number {
  return sectionNumber.split(".").length;
}

/**
 * Whether a lone line of running text (PDF, plain text) reads as a numbered heading rather than
 * a numbered sentence: a capitalised title of at most 12 words and 100 characters that does not
 * end like a sentence or a list item.
 */
export function isNumberedHeadingLine(line: string): boolean {
  const { sectionNumber, title } = splitSectionNumber(line);
  if (sectionNumber === null || line.length > 100) return false;
  if (!/^\p{Lu}/u.test(title) || !/\p{L}{2}/u.test(title)) return false;
  if (/[.,;:!?]$/.test(title)) return false;
  return title.split(/\s+/).length <= 12;
}
