/**
 * What every parser produces: the document as a flat, ordered list of blocks.
 * Chunkers only ever see this shape, never the original format.
 */

export type DocumentFormat = "pdf" | "docx" | "html" | "markdown" | "text" | "code";

export type BlockKind = "heading" | "paragraph" | "table" | "code" | "list" | "caption";

/**
 * A table as extracted. `rows` counts every row including the header row;
 * `headers` is empty when the table has no header row; `body` holds the data rows,
 * each padded to `columns` cells.
 */
export type TableData = {
  rows: number;
  columns: number;
  headers: string[];
  body: string[][];
};

export type Block = {
  kind: BlockKind;
  /** Plain text; for a table, its rows rendered as pipe-separated lines (see table-block.ts). */
  text: string;
  /** 1-indexed page, or null when the format has no pages. */
  page: number | null;
  /** Headings only: 1 is the outermost level. */
  level?: number;
  /** Headings only: the dotted number the heading starts with ("3.2.1"), or null. */
  sectionNumber?: string | null;
  /** Tables only. */
  table?: TableData;
  /** Code blocks only, when the language is known ("python", "typescript"...). */
  language?: string;
};

export type ParsedDocument = {
  format: DocumentFormat;
  mimeType: string;
  /** Real page count for PDFs; 1 for formats without pages. */
  pageCount: number;
  paginated: boolean;
  blocks: Block[];
  /** Source-code documents only: the language derived from the file extension. */
  language?: string;
};
