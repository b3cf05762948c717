/**
 * PDF text items → lines → cells. A line is a run of items on one baseline; within it, a
 * horizontal gap wider than the font size separates cells (table columns), smaller gaps are
 * spaces between words.
 */
import type { StructuredTextItem } from "unpdf";

export type PdfCell = { text: string; x: number; right: number };
export type PdfLine = {
  text: string;
  cells: PdfCell[];
  y: number;
  fontSize: number;
  /** Every item set in a fixed-pitch font (pdf.js's fallback family): code, not table cells. */
  monospace: boolean;
};

const CELL_GAP_EM = 1.0;
const WORD_GAP_EM = 0.1;
// Table cells laid out by word processors may sit a little above or below their row's other cells
// (vertically centred): still the same line, as long as the item is to the right of the last one.
const SAME_LINE_EM = 0.75;

/** Items arrive in content-stream order, which is reading order for text a program laid out. */
export function pageLines(items: StructuredTextItem[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let current: StructuredTextItem[] = [];
  for (const item of items) {
    if (item.str.trim() === "") continue;
    const last = current.at(-1);
    const sameBaseline = last !== undefined && Math.abs(item.y - last.y) <= Math.max(item.fontSize, last.fontSize) * SAME_LINE_EM;
    // Same baseline but further left: the next column's line, not the continuation of this one.
    if (last && (!sameBaseline || item.x < last.x)) {
      lines.push(lineOf(current));
      current = [];
    }
    current.push(item);
  }
  if (current.length > 0) lines.push(lineOf(current));
  return lines;
}

function lineOf(items: StructuredTextItem[]): PdfLine {
  const fontSize = Math.max(...items.map((item) => item.fontSize));
  const cells: PdfCell[] = [];
  let previous: StructuredTextItem | undefined;
  for (const item of items) {
    const gap = previous ? item.x - (previous.x + previous.width) : Infinity;
    const cell = cells.at(-1);
    if (!cell || gap > fontSize * CELL_GAP_EM) cells.push({ text: item.str, x: item.x, right: item.x + item.width });
    else {
      cell.right = item.x + item.width;
      cell.text += gap > fontSize * WORD_GAP_EM && !/\s$/.test(cell.text) && !/^\s/.test(item.str) ? ` ${item.str}` : item.str;
    }
    previous = item;
  }
  const cleanCells = cells.map((cell) => ({ ...cell, text: cell.text.replace(/\s+/g, " ").trim() }));
  const monospace = items.every((item) => item.fontFamily === "monospace");
  return { text: cleanCells.map((cell) => cell.text).join(" "), cells: cleanCells, y: items[0].y, fontSize, monospace };
}
