/**
 * Building table blocks the same way for every format, and rendering table rows as text.
 * Rows render as pipe-separated lines (Markdown style) because both people and language
 * models read that as a table.
 */
import type { Block, TableData } from "./types.ts";

export function tableBlock(headers: string[], body: string[][], page: number | null): Block {
  const cleanHeaders = headers.map(cleanCell);
  const cleanBody = body.map((row) => row.map(cleanCell)).filter((row) => row.some((cell) => cell !== ""));
  const columns = Math.max(cleanHeaders.length, ...cleanBody.map((row) => row.length));
  const padded = cleanBody.map((row) => [...row, ...Array<string>(columns - row.length).fill("")]);
  const paddedHeaders = cleanHeaders.length === 0 ? [] : [...cleanHeaders, ...Array<string>(columns - cleanHeaders.length).fill("")];
  const table: TableData = {
    rows: padded.length + (paddedHeaders.length > 0 ? 1 : 0),
    columns,
    headers: paddedHeaders,
    body: padded,
  };
  return { kind: "table", text: renderTableText(table.headers, table.body), page, table };
}

/** Header row (with a `---` separator row under it) followed by the body rows, one per line. */
export function renderTableText(headers: string[], body: string[][]): string {
  const lines = body.map(renderRow);
  if (headers.length === 0) return lines.join("\n");
  return [renderRow(headers), renderRow(headers.map(() => "---")), ...lines].join("\n");
}

function renderRow(cells: string[]): string {
  return `| ${cells.map((cell) => cell.replaceAll("|", "\\|")).join(" | ")} |`;
}

function cleanCell(cell: string): string {
  return cell.replace(/\s+/g, " ").trim();
}
