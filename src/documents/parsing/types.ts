/**
 * What every parser produces: the document as a flat, ordered list of blocks.
 * Chunkers only ever see this shape, never the original format.
 */

export type DocumentFormat = "pdf" | "docx" | "xlsx" | "pptx" | "epub" | "email" | "csv" | "html" | "markdown" | "text" | "code" | "image";

export type EmailAttachment = { filename: string | null; mime_type: string | null; size_bytes: number | null };

/** An e-mail's headers and attachment list. */
export type EmailProperties = {
  from: string | null;
  to: string[];
  cc: string[];
  /** ISO 8601 when the header parses as a date, else as written; null when absent. */
  date: string | null;
  subject: string | null;
  attachments: EmailAttachment[];
};

/** Document-level facts copied onto every chunk's metadata. */
export type DocumentProperties = { email?: EmailProperties };

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
  /** Speaker notes of a slide (PPTX). */
  notes?: boolean;
  /** Text read by OCR: the page's mean word confidence, 0–1. */
  ocrConfidence?: number;
};

export type ParsedDocument = {
  format: DocumentFormat;
  mimeType: string;
  /** Real page count for PDFs, slide count for PPTX; 1 for images and formats without pages. */
  pageCount: number;
  paginated: boolean;
  blocks: Block[];
  /** Source-code documents only: the language derived from the file extension. */
  language?: string;
  properties?: DocumentProperties;
};
