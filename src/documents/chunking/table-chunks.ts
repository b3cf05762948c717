/**
 * A table becomes its own chunk(s) and is never cut while it fits: caption, any headings still
 * waiting for content, and the whole table go in one chunk. A table too big for one chunk is
 * split between rows, every piece repeating the header row and the caption. A row too big even
 * alone (with its header) goes through the packer like prose and ends up cut between words.
 * Each row is rendered and counted once: a piece's size is the sum of its rows' counts plus its
 * lead's, and the piece is counted whole only near the limit (as the packer does), so a table of
 * n rows costs O(n) counting, not O(n²).
 */
import { renderTableText } from "../parsing/table-block.ts";
import type { TableData } from "../parsing/types.ts";
import { ChunkPacker, EXACT_MARGIN, type PackerSettings } from "./chunk-packer.ts";
import type { FlowItem } from "./section-flow.ts";
import type { TableMetadata } from "./types.ts";
import { blockUnit, joinedLength, joinUnits, type Unit } from "./units.ts";

export type TablePiece = { units: Unit[]; table: TableMetadata };

export function tablePieces(item: FlowItem, caption: FlowItem | null, headings: Unit[], settings: PackerSettings): TablePiece[] {
  const table = item.block.table!;
  const captionUnits = caption ? [blockUnit(caption)] : [];
  const fits = (units: Unit[]) => joinedLength(units) <= settings.maxChars && settings.countTokens(joinUnits(units)) <= settings.chunkSize;
  const lineStarts = tableLineStarts(item);
  const rowsUnit = (rows: number[]) => tableRowsUnit(item, lineStarts, rows);
  const whole = [...headings, ...captionUnits, blockUnit(item)];
  if (fits(whole)) return [{ units: whole, table: shapeOf(table, table.body.length) }];

  const pieces: TablePiece[] = [];
  const header = renderTableText(table.headers, []);
  const sizeOf = (text: string) => ({ tokens: text ? settings.countTokens(text) : 0, chars: text.length + 2 });
  const headerSize = sizeOf(header);
  const rowSize = (row: number) => sizeOf(renderTableText([], [table.body[row]!]));
  let lead = [...headings, ...captionUnits];
  let leadSize = sizeOf(joinUnits(lead));
  let rows: number[] = [];
  let rowsSize = { tokens: 0, chars: 0 };
  const setLead = (units: Unit[]) => {
    lead = units;
    leadSize = sizeOf(joinUnits(lead));
  };
  // Summed counts decide away from the limit; near it, the piece is rendered and counted whole.
  const fitsWith = (row: number, size: { tokens: number; chars: number }) => {
    const tokens = leadSize.tokens + headerSize.tokens + rowsSize.tokens + size.tokens;
    const chars = leadSize.chars + headerSize.chars + rowsSize.chars + size.chars;
    if (tokens <= settings.chunkSize - EXACT_MARGIN && chars <= settings.maxChars - CHAR_MARGIN) return true;
    if (tokens > settings.chunkSize + EXACT_MARGIN || chars > settings.maxChars + CHAR_MARGIN) return false;
    return fits([...lead, rowsUnit([...rows, row])]);
  };
  const closePiece = () => {
    pieces.push({ units: [...lead, rowsUnit(rows)], table: shapeOf(table, rows.length) });
    setLead(captionUnits);
    rows = [];
    rowsSize = { tokens: 0, chars: 0 };
  };
  for (let row = 0; row < table.body.length; row++) {
    const size = rowSize(row);
    if (fitsWith(row, size)) {
      rows.push(row);
      rowsSize = { tokens: rowsSize.tokens + size.tokens, chars: rowsSize.chars + size.chars };
    } else if (rows.length > 0) {
      closePiece();
      row--;
    } else if (lead.length > 0) {
      setLead(lead === captionUnits ? [] : captionUnits); // make room: drop the headings, then the caption
      row--;
    } else {
      pieces.push(...oversizedRowPieces(rowsUnit([row]), table, settings));
      setLead(captionUnits);
    }
  }
  if (rows.length > 0) closePiece();
  return pieces;
}

/** Joins between units and lines: the summed character count is within this of the rendered piece's. */
const CHAR_MARGIN = 8;

export function shapeOf(table: TableData, bodyRows: number): TableMetadata {
  return { rows: bodyRows + (table.headers.length > 0 ? 1 : 0), columns: table.columns, headers: table.headers };
}

/** Offset of every line of the table's text (computed once per table, not once per row). */
function tableLineStarts(item: FlowItem): number[] {
  const lineStarts = [0];
  for (const line of item.block.text.split("\n")) lineStarts.push(lineStarts[lineStarts.length - 1] + line.length + 1);
  return lineStarts;
}

/** The header plus the given body rows, with offsets spanning those rows in the document text. */
function tableRowsUnit(item: FlowItem, lineStarts: number[], rows: number[]): Unit {
  const table = item.block.table!;
  const headerLines = table.headers.length > 0 ? 2 : 0;
  const first = rows[0] === 0 ? 0 : headerLines + rows[0];
  const last = headerLines + rows[rows.length - 1];
  return {
    ...blockUnit(item),
    text: renderTableText(table.headers, rows.map((row) => table.body[row])),
    start: item.start + lineStarts[first],
    end: item.start + lineStarts[last + 1] - 1,
  };
}

function oversizedRowPieces(row: Unit, table: TableData, settings: PackerSettings): TablePiece[] {
  const pieces: TablePiece[] = [];
  const packer = new ChunkPacker({ ...settings, chunkOverlap: 0 }, (units) => pieces.push({ units, table: shapeOf(table, 1) }));
  packer.add(row);
  packer.finish();
  return pieces;
}
