/**
 * CSV and TSV → one table block, first row as header (RFC 4180: quoted fields may hold the
 * delimiter, doubled quotes and line breaks). The delimiter is a tab for .tsv, else whichever
 * of comma, semicolon and tab splits the first line into the most fields.
 */
import { tableBlock } from "./table-block.ts";
import type { Block } from "./types.ts";

export function parseDelimited(text: string, tabSeparated: boolean): Block[] {
  const delimiter = tabSeparated ? "\t" : guessDelimiter(text);
  const rows = splitRecords(text.replace(/^\uFEFF/, ""), delimiter).filter((row) => row.some((cell) => cell.trim() !== ""));
  if (rows.length === 0) return [];
  return [tableBlock(rows[0], rows.slice(1), null)];
}

function guessDelimiter(text: string): string {
  const firstLine = text.slice(0, text.indexOf("\n") < 0 ? text.length : text.indexOf("\n"));
  const candidates = [",", ";", "\t"];
  const fields = (delimiter: string) => splitRecords(firstLine, delimiter)[0]?.length ?? 0;
  return candidates.reduce((best, candidate) => (fields(candidate) > fields(best) ? candidate : best));
}

function splitRecords(text: string, delimiter: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char !== '"') field += char;
      else if (text[i + 1] === '"') field += text[++i];
      else quoted = false;
    } else if (char === '"' && field === "") {
      quoted = true;
    } else if (char === delimiter) {
      record.push(field);
      field = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[i + 1] === "\n") i++;
      record.push(field);
      records.push(record);
      record = [];
      field = "";
    } else {
      field += char;
    }
  }
  if (field !== "" || record.length > 0) records.push([...record, field]);
  return records;
}
