/**
 * XLSX → blocks: one section (a heading) per sheet in workbook order, then the sheet's cells as
 * one table whose first non-empty row is the header (title lines above it, one value each, are
 * paragraphs). Cells show what Excel last computed: a
 * formula's cached value, shared and inline strings, booleans as TRUE/FALSE; a merged range
 * repeats its value in every cell it covers, so a header spanning columns labels each of them.
 * Numbers are written as stored (dates stay serial numbers: number formats are not applied).
 */
import type { DecompressionLimits } from "./limits.ts";
import { tableBlock } from "./table-block.ts";
import type { Block } from "./types.ts";
import { childNamed, childrenNamed, descendantNamed, descendantsNamed, textOf, type XmlElement } from "./xml-tree.ts";
import { ZipParts } from "./zip-parts.ts";

const WORKBOOK = "xl/workbook.xml";

export function parseXlsx(bytes: Uint8Array, limits: DecompressionLimits): Block[] {
  const parts = new ZipParts(bytes, limits, ".xlsx");
  const workbook = parts.xml(WORKBOOK);
  const rels = parts.relationships(WORKBOOK);
  const sharedStrings = readSharedStrings(parts, [...rels.values()].find((rel) => rel.type.endsWith("/sharedStrings"))?.target);
  const blocks: Block[] = [];
  for (const sheet of descendantsNamed(workbook, "sheet")) {
    const target = rels.get(sheet.attrs["r:id"])?.target;
    if (!target || !parts.has(target)) continue; // chart sheets and dialog sheets hold no cells
    const name = sheet.attrs.name ?? target;
    const rows = readGrid(parts.xml(target), sharedStrings);
    if (rows.length === 0) continue;
    blocks.push({ kind: "heading", text: name, page: null, level: 1, sectionNumber: null });
    // Title lines above the table (one value, often merged across it) are text, not its header.
    let first = 0;
    while (first < rows.length - 1 && rows[first].length > 1 && new Set(rows[first].filter((cell) => cell !== "")).size === 1) {
      blocks.push({ kind: "paragraph", text: rows[first].find((cell) => cell !== "")!, page: null });
      first++;
    }
    blocks.push(tableBlock(rows[first], rows.slice(first + 1), null));
  }
  return blocks;
}

function readSharedStrings(parts: ZipParts, target: string | undefined): string[] {
  const name = target ?? "xl/sharedStrings.xml";
  if (!parts.has(name)) return [];
  // Rich text runs (<r><t>) and plain <t> alike; phonetic runs (<rPh>) are reading aids, not text.
  return descendantsNamed(parts.xml(name), "si").map((si) => si.children.filter((child) => child.name !== "rPh").map((child) => (child.name === "t" ? textOf(child) : textOf(child, "t"))).join(""));
}

/**
 * The sheet's non-empty rows and columns as rows of strings, merged ranges filled. Cells are
 * kept sparse by their A1 references: a cell at XFD1048576 costs one entry, not a million rows.
 * A merged range fills only rows and columns that hold a value of their own.
 */
function readGrid(sheet: XmlElement, sharedStrings: string[]): string[][] {
  const cells = new Map<number, Map<number, string>>();
  const sheetData = descendantNamed(sheet, "sheetData");
  let nextRow = 0;
  for (const row of sheetData ? childrenNamed(sheetData, "row") : []) {
    const rowIndex = row.attrs.r ? Number(row.attrs.r) - 1 : nextRow;
    nextRow = rowIndex + 1;
    let nextColumn = 0;
    for (const cell of childrenNamed(row, "c")) {
      const column = cell.attrs.r ? columnIndex(cell.attrs.r) : nextColumn;
      nextColumn = column + 1;
      const value = cellValue(cell, sharedStrings);
      if (value.trim() !== "") setCell(cells, rowIndex, column, value);
    }
  }
  const rows = [...cells.keys()].sort((a, b) => a - b);
  const columns = [...new Set([...cells.values()].flatMap((row) => [...row.keys()]))].sort((a, b) => a - b);
  for (const merge of descendantsNamed(sheet, "mergeCell")) {
    const [from, to] = (merge.attrs.ref ?? "").split(":");
    if (!from || !to) continue;
    const [r0, c0, r1, c1] = [rowOf(from), columnIndex(from), rowOf(to), columnIndex(to)];
    const value = cells.get(r0)?.get(c0);
    if (value === undefined) continue;
    for (const r of rows) {
      if (r < r0 || r > r1) continue;
      for (const c of columns) if (c >= c0 && c <= c1) setCell(cells, r, c, value);
    }
  }
  return rows.map((r) => columns.map((c) => cells.get(r)?.get(c) ?? ""));
}

function cellValue(cell: XmlElement, sharedStrings: string[]): string {
  const type = cell.attrs.t ?? "n";
  if (type === "inlineStr") return textOf(childNamed(cell, "is") ?? cell, "t");
  const v = childNamed(cell, "v");
  const raw = v ? textOf(v) : "";
  if (type === "s") return sharedStrings[Number(raw)] ?? "";
  if (type === "b") return raw === "1" ? "TRUE" : raw === "0" ? "FALSE" : raw;
  return raw;
}

function setCell(cells: Map<number, Map<number, string>>, row: number, column: number, value: string): void {
  let cellsOfRow = cells.get(row);
  if (!cellsOfRow) cells.set(row, (cellsOfRow = new Map()));
  cellsOfRow.set(column, value);
}

/** "BC12" → 54 (0-based column). */
function columnIndex(reference: string): number {
  let index = 0;
  for (const char of reference.toUpperCase()) {
    const code = char.charCodeAt(0);
    if (code < 65 || code > 90) break;
    index = index * 26 + (code - 64);
  }
  return index - 1;
}

const rowOf = (reference: string) => Number(/\d+/.exec(reference)?.[0] ?? "1") - 1;
