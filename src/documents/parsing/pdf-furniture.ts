/**
 * Page furniture (Docling's term): running headers and footers, the lines a PDF repeats at the top
 * or bottom of its pages ("NATURAL SCIENCES CITATIONS AND REFERENCES 3", "2 P. W. Daly", a slide
 * deck's title bar). They are not content: left in, they become sections ("§ 2") and sit inside
 * chunk text. A line is furniture when, with its numbers ignored, the same text is among the first
 * or among the last lines of at least three pages that are not all the same page (a page printed
 * three times is content), and each of its numbers either never changes or grows with the page by
 * at most one a page (a page number; slides with overlays repeat one): table rows at the top of
 * pages, whose numbers change otherwise, are content. Lines set 20% larger than the body text are
 * headings (a slide title kept over several slides), never furniture.
 * A line of three or more cells must have such a page number: without one it is a table's header
 * row, repeated on every page the table spans. Lines with fewer than three letters ("}", "–")
 * are never furniture: code and rules end pages by chance.
 */
import { measureTypography } from "./pdf-blocks.ts";
import type { PdfLine } from "./pdf-lines.ts";

/** How many lines at each end of a page may be furniture (a slide's title bar holds three). */
const EDGE_LINES = 3;
const MIN_PAGES = 3;
const MIN_LETTERS = 3;
const HEADING_SIZE_RATIO = 1.2;
/** Lines with more cells than this must differ between pages (see above). */
const MAX_FIXED_CELLS = 2;

type Edge = "top" | "bottom";

/** The line with its numbers (page, chapter, date) blurred and case and spacing ignored. */
export function furnitureKey(text: string): string {
  return text.toLowerCase().replace(/\d+/g, "#").replace(/\s+/g, " ").trim();
}

function edgeLines(lines: PdfLine[]): { line: PdfLine; edge: Edge }[] {
  const top = lines.slice(0, EDGE_LINES).map((line) => ({ line, edge: "top" as const }));
  const bottom = lines.slice(Math.max(EDGE_LINES, lines.length - EDGE_LINES)).map((line) => ({ line, edge: "bottom" as const }));
  return [...top, ...bottom];
}

const edgeKey = (line: PdfLine, edge: Edge) => `${edge}:${furnitureKey(line.text)}`;

type Occurrence = { page: number; numbers: number[] };

/** Every number of the line is the same on every page, or never falls and grows by at most one a page (occurrences come in page order). */
function numbersFollowPages(occurrences: Occurrence[]): boolean {
  const [first] = occurrences;
  if (!first || occurrences.some((occurrence) => occurrence.numbers.length !== first.numbers.length)) return false;
  return first.numbers.every((_, i) =>
    occurrences.every((occurrence, k) => {
      if (k === 0) return true;
      const previous = occurrences[k - 1]!;
      const growth = occurrence.numbers[i]! - previous.numbers[i]!;
      return growth >= 0 && growth <= occurrence.page - previous.page;
    }),
  );
}

/** The edge keys (see edgeKey) of the running lines of these pages. */
export function runningLineKeys(pages: PdfLine[][]): Set<string> {
  const headingSize = measureTypography(pages).bodyFontSize * HEADING_SIZE_RATIO;
  const seen = new Map<string, { pages: Set<number>; pageTexts: Set<string>; texts: Set<string>; occurrences: Occurrence[]; cells: number }>();
  pages.forEach((lines, page) => {
    const pageText = lines.map((line) => furnitureKey(line.text)).join("\n");
    for (const { line, edge } of edgeLines(lines)) {
      if ((line.text.match(/\p{L}/gu) ?? []).length < MIN_LETTERS || line.fontSize >= headingSize) continue;
      const key = edgeKey(line, edge);
      const entry = seen.get(key) ?? { pages: new Set(), pageTexts: new Set(), texts: new Set(), occurrences: [], cells: 0 };
      if (entry.pages.has(page)) continue;
      entry.pages.add(page);
      entry.occurrences.push({ page, numbers: (line.text.match(/\d+/g) ?? []).map(Number) });
      entry.pageTexts.add(pageText);
      entry.texts.add(line.text);
      entry.cells = Math.max(entry.cells, line.cells.length);
      seen.set(key, entry);
    }
  });
  const running = [...seen].filter(
    ([, entry]) => entry.pages.size >= MIN_PAGES && entry.pageTexts.size > 1 && numbersFollowPages(entry.occurrences) && (entry.cells <= MAX_FIXED_CELLS || entry.texts.size > 1),
  );
  return new Set(running.map(([key]) => key));
}

/** Every page without its running headers and footers. */
export function withoutFurniture(pages: PdfLine[][]): PdfLine[][] {
  const running = runningLineKeys(pages);
  if (running.size === 0) return pages;
  return pages.map((lines) => {
    const furniture = new Set(edgeLines(lines).filter(({ line, edge }) => running.has(edgeKey(line, edge))).map(({ line }) => line));
    return furniture.size === 0 ? lines : lines.filter((line) => !furniture.has(line));
  });
}
