/**
 * PDF lines of one page → blocks:
 * - headings: the lines the outline marked (pdf-outline.ts) when the PDF has an outline;
 *   otherwise, from layout: a numbered line ("2.1 Scope", "Chapter 4", "IV. Results") set larger
 *   than body text or standing alone between vertical gaps (its level from the numbering), or
 *   any short line set at least 20% larger than body text (its level from the font size);
 * - tables: three or more consecutive lines with two or more cells (plus one-cell rows that keep
 *   the row pitch) that show real columns (see isTable); columns anchored on the x positions
 *   of the widest row, first row as header;
 * - table-of-contents and index lines (dot leaders, a page number closing a run of entries) and
 *   lines set in a fixed-pitch font (code) are never table rows or headings;
 * - captions ("Table 1: ..."), bullet lists, and paragraphs, which break at vertical gaps wider
 *   than 1.5 lines or at a change of font size;
 * - a page number alone on the first or last line of a page is dropped.
 */
import { isCaptionText } from "./caption-text.ts";
import type { PdfCell, PdfLine } from "./pdf-lines.ts";
import type { HeadingMark, PageLine } from "./pdf-outline.ts";
import { isNumberedHeadingLine, sectionDepth, splitSectionNumber } from "./section-numbers.ts";
import { tableBlock } from "./table-block.ts";
import type { Block } from "./types.ts";
import { joinWrappedLines } from "./wrapped-lines.ts";

/** Font facts measured over the whole document. */
export type PdfTypography = {
  bodyFontSize: number;
  /** Distinct font sizes of large-type headings, largest first: index + 1 is the heading level. */
  headingFontSizes: number[];
};

const PARAGRAPH_GAP_LINES = 1.5;
const TABLE_ROW_GAP_LINES = 3;
const HEADING_SIZE_RATIO = 1.2;
const MIN_TABLE_ROWS = 3;
/** Share of a table's cells that must line up (left, right, centre, or within one column's span) with a column of its widest row. */
const MIN_ALIGNED_CELLS = 0.8;
/** Mean words per cell above which a column is running text (two-column prose, option descriptions). */
const MAX_COLUMN_WORDS = 8;
const DOT_LEADER = /(?:\.\s?){4,}|…{2,}/;
const INDEX_CELL = /,\s*\d{1,4}(?:[–-]\d{1,4})?$/;
/** Printed page numbers may run behind physical ones by a cover and roman-numbered front matter. */
const FRONT_MATTER_PAGES = 20;
const TRAILING_PAGE_NUMBER = /^(?:\d{1,4}|[ivxlc]{1,7})$/i;
const PAGE_NUMBER = /^(?:page\s+)?[-–]?\s*\d{1,4}\s*[-–]?(?:\s*(?:\/|of)\s*\d{1,4})?$/i;
const BULLET = /^[•◦▪‣∙·*–-]\s+/;

export function measureTypography(pages: PdfLine[][]): PdfTypography {
  const charsBySize = new Map<number, number>();
  for (const line of pages.flat()) {
    const size = roundSize(line.fontSize);
    charsBySize.set(size, (charsBySize.get(size) ?? 0) + line.text.length);
  }
  const bodyFontSize = [...charsBySize.entries()].reduce((best, entry) => (entry[1] > best[1] ? entry : best), [0, -1])[0];
  const headingFontSizes = [...new Set(pages.flat().filter((line) => isLargeTypeHeading(line, bodyFontSize)).map((line) => roundSize(line.fontSize)))]
    .sort((a, b) => b - a);
  return { bodyFontSize, headingFontSizes };
}

/** What every page of a document is read with. */
export type PdfContext = {
  typography: PdfTypography;
  pageCount: number;
  /**
   * Depth of the PDF's outline, 0 without one. With an outline, the headings are the lines it
   * marked, plus numbered headings deeper than it goes (an outline of chapters only still
   * leaves "2.1 Scope" a section).
   */
  outlineDepth: number;
};

export function pageBlocks(lines: PageLine[], page: number, { typography, pageCount, outlineDepth }: PdfContext): Block[] {
  const content = withoutPageNumbers(lines);
  const contentsLine = contentsLines(content, pageCount);
  const blocks: Block[] = [];
  let open: { kind: "paragraph" | "list" | "caption"; lines: string[] } | null = null;
  const close = () => {
    if (open) blocks.push({ kind: open.kind, text: open.kind === "list" ? open.lines.join("\n") : joinWrappedLines(open.lines), page });
    open = null;
  };

  let i = 0;
  // Lines of a run already found not to be a table are not tried again one by one.
  let notTableUntil = 0;
  while (i < content.length) {
    const line = content[i];
    const previous = content[i - 1];
    if (i >= notTableUntil && !line.heading) {
      const tableEnd = tableRunEnd(content, i, contentsLine);
      if (tableEnd - i >= 2 && isTable(content.slice(i, tableEnd))) {
        close();
        blocks.push(tableOfLines(content.slice(i, tableEnd), page));
        i = tableEnd;
        continue;
      }
      notTableUntil = tableEnd;
    }
    const guessed = line.heading || contentsLine[i] ? null : layoutHeading(line, previous, content[i + 1], typography);
    const heading = line.heading ?? (outlineDepth === 0 || (guessed?.sectionNumber && guessed.level > outlineDepth) ? guessed : null);
    if (heading) {
      close();
      blocks.push({ kind: "heading", text: line.text, page, level: heading.level, sectionNumber: heading.sectionNumber });
    } else if (BULLET.test(line.text)) {
      if (open?.kind !== "list" || gapBetween(previous, line)) {
        close();
        open = { kind: "list", lines: [] };
      }
      open.lines.push(line.text);
    } else if (!open || gapBetween(previous, line) || isCaptionText(line.text) || Math.abs(line.fontSize - previous.fontSize) > previous.fontSize * 0.1) {
      close();
      open = { kind: isCaptionText(line.text) ? "caption" : "paragraph", lines: [line.text] };
    } else if (open.kind === "list") {
      // A wrapped bullet item: continue its last line.
      open.lines[open.lines.length - 1] = joinWrappedLines([open.lines[open.lines.length - 1], line.text]);
    } else {
      open.lines.push(line.text);
    }
    i++;
  }
  close();
  return blocks;
}

function roundSize(size: number): number {
  return Math.round(size * 2) / 2;
}

/** Large type with words in it: not a lone number or symbol (a figure label), not an e-mail address or URL (a title page's author line). */
function isLargeTypeHeading(line: PdfLine, bodyFontSize: number): boolean {
  return (
    line.cells.length === 1 &&
    line.fontSize >= bodyFontSize * HEADING_SIZE_RATIO &&
    line.text.split(/\s+/).length <= 12 &&
    !/[.,;:]$/.test(line.text) &&
    /\p{L}{2}/u.test(line.text) &&
    !/@|:\/\/|www\./.test(line.text)
  );
}

/** A heading guessed from layout (no outline): level from the numbering, else from the font size. */
function layoutHeading(line: PdfLine, previous: PdfLine | undefined, next: PdfLine | undefined, typography: PdfTypography): HeadingMark | null {
  if (line.monospace) return null;
  // "1 Introduction" may be set as two cells: number, gap, title.
  const numbered = line.cells.length <= 2 && isNumberedHeadingLine(line.text);
  if (line.cells.length > 1 && !numbered) return null;
  const { sectionNumber } = splitSectionNumber(line.text);
  if (numbered) {
    const larger = line.fontSize >= typography.bodyFontSize * 1.1;
    const standsAlone = gapBetween(previous, line) && gapBetween(line, next);
    if (larger || standsAlone) return { level: sectionDepth(sectionNumber!), sectionNumber };
  }
  if (line.cells.length === 1 && isLargeTypeHeading(line, typography.bodyFontSize)) {
    return { level: typography.headingFontSizes.indexOf(roundSize(line.fontSize)) + 1, sectionNumber: null };
  }
  return null;
}

/**
 * Which lines belong to a table of contents or an index: a dot leader, or a page number (one
 * the document could have) as the last cell in a run of three or more such lines whose page
 * numbers never go down.
 */
function contentsLines(lines: PdfLine[], pageCount: number): boolean[] {
  const pageRef = lines.map((line) => {
    const last = line.cells[line.cells.length - 1];
    const isPage = TRAILING_PAGE_NUMBER.test(last.text) && !(Number(last.text) > pageCount + FRONT_MATTER_PAGES);
    return line.cells.length >= 2 && isPage && /\p{L}/u.test(line.cells[line.cells.length - 2].text) ? last.text : null;
  });
  const marked = lines.map((line) => DOT_LEADER.test(line.text));
  let start = 0;
  while (start < lines.length) {
    let end = start;
    while (end < lines.length && pageRef[end] !== null && (end === start || !decreases(pageRef[end - 1]!, pageRef[end]!))) end++;
    if (end - start >= 3) for (let i = start; i < end; i++) marked[i] = true;
    start = Math.max(end, start + 1);
  }
  return marked;
}

function decreases(before: string, after: string): boolean {
  const a = Number(before);
  const b = Number(after);
  return Number.isFinite(a) && Number.isFinite(b) && b < a;
}

/** True when a vertical gap (or a jump up to a new column, or no neighbour at all) separates two lines. */
function gapBetween(upper: PdfLine | undefined, lower: PdfLine | undefined): boolean {
  if (!upper || !lower) return true;
  const distance = upper.y - lower.y;
  return distance < 0 || distance > Math.max(upper.fontSize, lower.fontSize) * PARAGRAPH_GAP_LINES;
}

/**
 * Where a table starting at `start` ends. Rows are lines with two or more cells; a line with one
 * cell is a row with empty cells when it keeps the table's row pitch and sits under a column.
 */
function tableRunEnd(lines: PageLine[], start: number, contentsLine: boolean[]): number {
  const candidate = (i: number) => !lines[i].monospace && !contentsLine[i] && !lines[i].heading;
  if (lines[start].cells.length < 2 || !candidate(start)) return start;
  const columnXs = lines[start].cells.map((cell) => cell.x);
  let rowPitch: number | null = null;
  let end = start + 1;
  while (end < lines.length) {
    const line = lines[end];
    if (!candidate(end)) break;
    const gap = lines[end - 1].y - line.y;
    const fullRow = line.cells.length >= 2 && gap >= 0 && gap <= line.fontSize * TABLE_ROW_GAP_LINES;
    const sparseRow =
      rowPitch !== null && line.cells.length === 1 && Math.abs(gap - rowPitch) <= rowPitch * 0.1 && columnXs.some((x) => Math.abs(x - line.cells[0].x) < 2);
    if (!fullRow && !sparseRow) break;
    rowPitch ??= gap;
    columnXs.push(...line.cells.map((cell) => cell.x));
    end++;
  }
  return end;
}

/**
 * Columnar evidence: enough rows; cells that line up with the columns of the widest row (by
 * left edge, right edge or centre) in most rows; short cells in every column (a column of
 * running text is prose set side by side or an option list); no index entries ("term, 12");
 * not a listing whose first column counts lines (1, 2, 3...).
 */
function isTable(lines: PdfLine[]): boolean {
  if (lines.length < MIN_TABLE_ROWS) return false;
  const widest = lines.reduce((best, line) => (line.cells.length > best.cells.length ? line : best));
  const columns = widest.cells;
  const tolerance = widest.fontSize * 0.6;
  const cells = lines.flatMap((line) => line.cells);
  const overlaps = (cell: PdfCell, column: PdfCell) => cell.x < column.right && column.x < cell.right;
  const aligned = cells.filter(
    (cell) =>
      columns.some(
        (column) =>
          Math.abs(cell.x - column.x) <= tolerance ||
          Math.abs(cell.right - column.right) <= tolerance ||
          Math.abs((cell.x + cell.right) / 2 - (column.x + column.right) / 2) <= tolerance,
      ) ||
      // A left-aligned cell under a centred header: inside one column's span, not straddling two.
      columns.filter((column) => overlaps(cell, column)).length === 1,
  );
  if (aligned.length < cells.length * MIN_ALIGNED_CELLS) return false;
  if (cells.filter((cell) => INDEX_CELL.test(cell.text)).length >= cells.length * 0.3) return false;
  if (isLineNumbered(lines)) return false;
  const wordsByColumn = columns.map(() => ({ words: 0, cells: 0 }));
  for (const line of lines) {
    for (const cell of line.cells) {
      const column = wordsByColumn[columnOf(columns, cell)];
      column.words += wordCount(cell.text);
      column.cells++;
    }
  }
  return wordsByColumn.every((column) => column.cells === 0 || column.words / column.cells <= MAX_COLUMN_WORDS);
}

/** Words, counting text in scripts written without spaces (Chinese, Japanese) at two characters a word. */
function wordCount(text: string): number {
  const unspaced = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu)?.length ?? 0;
  return text.split(/\s+/).length + unspaced / 2;
}

/** Most rows start with the previous row's leading number plus one: a numbered code listing. */
function isLineNumbered(lines: PdfLine[]): boolean {
  const leading = lines.map((line) => /^(\d{1,5})\b/.exec(line.cells[0].text)?.[1]).map(Number);
  const steps = leading.slice(1).filter((n, i) => n === leading[i] + 1).length;
  return steps >= (lines.length - 1) * 0.6;
}

function tableOfLines(lines: PdfLine[], page: number): Block {
  const widest = lines.reduce((best, line) => (line.cells.length > best.cells.length ? line : best));
  const columns = widest.cells;
  const rows = lines.map((line) => {
    const row = columns.map(() => "");
    for (const cell of line.cells) {
      const column = columnOf(columns, cell);
      row[column] = row[column] ? `${row[column]} ${cell.text}` : cell.text;
    }
    return row;
  });
  return tableBlock(rows[0], rows.slice(1), page);
}

/** The column whose span overlaps the cell most; without any overlap, the one starting nearest. */
function columnOf(columns: PdfCell[], cell: PdfCell): number {
  const overlap = columns.map((column) => Math.min(cell.right, column.right) - Math.max(cell.x, column.x));
  const best = overlap.indexOf(Math.max(...overlap));
  return overlap[best] > 0 ? best : nearestIndex(columns.map((column) => column.x), cell.x);
}

function nearestIndex(values: number[], target: number): number {
  let best = 0;
  values.forEach((value, i) => {
    if (Math.abs(value - target) < Math.abs(values[best] - target)) best = i;
  });
  return best;
}

function withoutPageNumbers(lines: PageLine[]): PageLine[] {
  return lines.filter((line, i) => !((i === 0 || i === lines.length - 1) && PAGE_NUMBER.test(line.text)));
}
