/**
 * PDF lines of one page → blocks, from layout alone:
 * - tables: two or more consecutive lines with two or more cells (plus one-cell rows that keep
 *   the row pitch); columns anchored on the x positions of the widest row, first row as header;
 * - headings: a numbered line ("2.1 Scope") set larger than body text or standing alone between
 *   vertical gaps, or any short line set at least 20% larger than body text;
 * - captions ("Table 1: ..."), bullet lists, and paragraphs, which break at vertical gaps wider
 *   than 1.5 lines or at a change of font size;
 * - a page number alone on the first or last line of a page is dropped.
 */
import { isCaptionText } from "./caption-text.ts";
import type { PdfLine } from "./pdf-lines.ts";
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
const TABLE_ROW_GAP_LINES = 2.5;
const HEADING_SIZE_RATIO = 1.2;
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

export function pageBlocks(lines: PdfLine[], page: number, typography: PdfTypography): Block[] {
  const content = withoutPageNumbers(lines);
  const blocks: Block[] = [];
  let open: { kind: "paragraph" | "list" | "caption"; lines: string[] } | null = null;
  const close = () => {
    if (open) blocks.push({ kind: open.kind, text: open.kind === "list" ? open.lines.join("\n") : joinWrappedLines(open.lines), page });
    open = null;
  };

  let i = 0;
  while (i < content.length) {
    const line = content[i];
    const previous = content[i - 1];
    const tableEnd = tableRunEnd(content, i);
    if (tableEnd - i >= 2) {
      close();
      blocks.push(tableOfLines(content.slice(i, tableEnd), page));
      i = tableEnd;
      continue;
    }
    const level = headingLevel(line, previous, content[i + 1], typography);
    if (level !== null) {
      close();
      blocks.push({ kind: "heading", text: line.text, page, level, sectionNumber: splitSectionNumber(line.text).sectionNumber });
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

function isLargeTypeHeading(line: PdfLine, bodyFontSize: number): boolean {
  return line.cells.length === 1 && line.fontSize >= bodyFontSize * HEADING_SIZE_RATIO && line.text.split(/\s+/).length <= 12 && !/[.,;:]$/.test(line.text);
}

function headingLevel(line: PdfLine, previous: PdfLine | undefined, next: PdfLine | undefined, typography: PdfTypography): number | null {
  if (line.cells.length > 1) return null;
  if (isNumberedHeadingLine(line.text)) {
    const larger = line.fontSize >= typography.bodyFontSize * 1.1;
    const standsAlone = gapBetween(previous, line) && gapBetween(line, next);
    if (larger || standsAlone) return sectionDepth(splitSectionNumber(line.text).sectionNumber!);
  }
  if (isLargeTypeHeading(line, typography.bodyFontSize)) return typography.headingFontSizes.indexOf(roundSize(line.fontSize)) + 1;
  return null;
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
function tableRunEnd(lines: PdfLine[], start: number): number {
  if (lines[start].cells.length < 2) return start;
  const columnXs = lines[start].cells.map((cell) => cell.x);
  let rowPitch: number | null = null;
  let end = start + 1;
  while (end < lines.length) {
    const line = lines[end];
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

function tableOfLines(lines: PdfLine[], page: number): Block {
  const widest = lines.reduce((best, line) => (line.cells.length > best.cells.length ? line : best));
  const anchors = widest.cells.map((cell) => cell.x);
  const rows = lines.map((line) => {
    const row = anchors.map(() => "");
    for (const cell of line.cells) {
      const column = nearestIndex(anchors, cell.x);
      row[column] = row[column] ? `${row[column]} ${cell.text}` : cell.text;
    }
    return row;
  });
  return tableBlock(rows[0], rows.slice(1), page);
}

function nearestIndex(values: number[], target: number): number {
  let best = 0;
  values.forEach((value, i) => {
    if (Math.abs(value - target) < Math.abs(values[best] - target)) best = i;
  });
  return best;
}

function withoutPageNumbers(lines: PdfLine[]): PdfLine[] {
  return lines.filter((line, i) => !((i === 0 || i === lines.length - 1) && PAGE_NUMBER.test(line.text)));
}
