/** Bytes of an upload → ParsedDocument: detect the format, run its parser, refuse a document with no text. */
import { parseCode } from "./code-parser.ts";
import { decodeText } from "./decode-text.ts";
import { detectFormat } from "./detect-format.ts";
import { parseDocx } from "./docx-parser.ts";
import { hasTokens } from "../../embeddings/model-text.ts";
import { EmptyFileError } from "./errors.ts";
import { parseHtml } from "./html-parser.ts";
import { DEFAULT_DECOMPRESSION_LIMITS, type DecompressionLimits } from "./limits.ts";
import { parseMarkdown } from "./markdown-parser.ts";
import { parsePdf } from "./pdf-parser.ts";
import { parsePlainText } from "./text-parser.ts";
import type { Block, ParsedDocument } from "./types.ts";

/** The formats whose parsers hold a thread for long (pdf.js, mammoth): the server reads them in its ParserThread. */
export type ThreadedFormat = "pdf" | "docx";
export type ReadResult = { blocks: Block[]; pageCount: number };
/** PDF or DOCX bytes → blocks: in this thread by default, or in the server's ParserThread. */
export type ThreadedReader = (format: ThreadedFormat, bytes: Uint8Array, limits: DecompressionLimits) => Promise<ReadResult>;

export async function readThreadedFormat(format: ThreadedFormat, bytes: Uint8Array, limits: DecompressionLimits): Promise<ReadResult> {
  if (format === "pdf") return parsePdf(bytes, limits);
  return { blocks: await parseDocx(bytes, limits), pageCount: 1 };
}

export async function parseDocument(
  filename: string,
  bytes: Uint8Array,
  declaredMime?: string,
  limits: DecompressionLimits = DEFAULT_DECOMPRESSION_LIMITS,
  read: ThreadedReader = readThreadedFormat,
): Promise<ParsedDocument> {
  const { format, mimeType, language } = detectFormat(filename, bytes, declaredMime);
  let blocks: Block[];
  let pageCount = 1;
  if (format === "pdf" || format === "docx") {
    ({ blocks, pageCount } = await read(format, bytes, limits));
  } else {
    const text = decodeText(bytes);
    if (format === "html") blocks = parseHtml(text);
    else if (format === "markdown") blocks = parseMarkdown(text);
    else if (format === "code") blocks = parseCode(text, language!);
    else blocks = parsePlainText(text);
  }
  // A block of invisible characters only (zero-width spaces, format characters) holds nothing to
  // read or embed: it is dropped like an empty line.
  blocks = blocks.filter((block) => hasTokens(block.text));
  if (blocks.length === 0) {
    throw new EmptyFileError(format === "pdf" ? `${filename} has no text layer (scanned pages are not supported)` : `${filename} contains no text`);
  }
  return { format, mimeType, pageCount, paginated: format === "pdf", blocks, ...(language ? { language } : {}) };
}
