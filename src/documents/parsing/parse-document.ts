/** Bytes of an upload → ParsedDocument: detect the format, run its parser, refuse a document with no text. */
import { parseCode } from "./code-parser.ts";
import { parseDelimited } from "./csv-parser.ts";
import { decodeText } from "./decode-text.ts";
import { detectFormat } from "./detect-format.ts";
import { parseDocx } from "./docx-parser.ts";
import { parseEml, parseMsg } from "./email-parser.ts";
import { parseEpub } from "./epub-parser.ts";
import { hasTokens } from "../../embeddings/model-text.ts";
import { EmptyFileError } from "./errors.ts";
import { parseHtml } from "./html-parser.ts";
import { parseImage } from "./image-parser.ts";
import { DEFAULT_DECOMPRESSION_LIMITS, type DecompressionLimits } from "./limits.ts";
import { parseMarkdown } from "./markdown-parser.ts";
import { ocrFiles, type OcrFiles } from "./ocr.ts";
import { parsePdf } from "./pdf-parser.ts";
import { parsePptx } from "./pptx-parser.ts";
import { parsePlainText } from "./text-parser.ts";
import type { Block, DocumentProperties, ParsedDocument } from "./types.ts";
import { parseXlsx } from "./xlsx-parser.ts";

/**
 * The formats read from a container or binary (pdf.js, mammoth, the OOXML and EPUB zips, MIME and
 * Outlook messages, images by OCR): the server reads them in its ParserThread, under the watchdog.
 */
export type ThreadedFormat = "pdf" | "docx" | "xlsx" | "pptx" | "epub" | "eml" | "msg" | "image";
export type ReadResult = { blocks: Block[]; pageCount: number; properties?: DocumentProperties };
/** Threaded-format bytes → blocks: in this thread by default, or in the server's ParserThread. */
export type ThreadedReader = (format: ThreadedFormat, bytes: Uint8Array, limits: DecompressionLimits) => Promise<ReadResult>;

/** `ocr`: the OCR engine's files; by default this build's (the parser thread is handed them, see ParserThread). */
export async function readThreadedFormat(format: ThreadedFormat, bytes: Uint8Array, limits: DecompressionLimits, ocr: OcrFiles = ocrFiles()): Promise<ReadResult> {
  switch (format) {
    case "pdf":
      return parsePdf(bytes, limits, ocr);
    case "image":
      return parseImage(bytes, ocr);
    case "docx":
      return { blocks: await parseDocx(bytes, limits), pageCount: 1 };
    case "xlsx":
      return { blocks: parseXlsx(bytes, limits), pageCount: 1 };
    case "pptx":
      return parsePptx(bytes, limits);
    case "epub":
      return { blocks: parseEpub(bytes, limits), pageCount: 1 };
    case "eml":
      return { ...(await parseEml(bytes)), pageCount: 1 };
    case "msg":
      return { ...parseMsg(bytes), pageCount: 1 };
  }
}

export async function parseDocument(
  filename: string,
  bytes: Uint8Array,
  declaredMime?: string,
  limits: DecompressionLimits = DEFAULT_DECOMPRESSION_LIMITS,
  read: ThreadedReader = readThreadedFormat,
): Promise<ParsedDocument> {
  const { format, mimeType, language, reader } = detectFormat(filename, bytes, declaredMime);
  let blocks: Block[];
  let pageCount = 1;
  let properties: DocumentProperties | undefined;
  if (reader) {
    ({ blocks, pageCount, properties } = await read(reader, bytes, limits));
  } else {
    const text = decodeText(bytes);
    if (format === "html") blocks = parseHtml(text);
    else if (format === "markdown") blocks = parseMarkdown(text);
    else if (format === "code") blocks = parseCode(text, language!);
    else if (format === "csv") blocks = parseDelimited(text, mimeType === "text/tab-separated-values");
    else blocks = parsePlainText(text);
  }
  // A block of invisible characters only (zero-width spaces, format characters) holds nothing to
  // read or embed: it is dropped like an empty line.
  blocks = blocks.filter((block) => hasTokens(block.text));
  if (blocks.length === 0) {
    throw new EmptyFileError(
      format === "pdf" ? `${filename} has no text layer and no scanned page OCR could read text from` : format === "image" ? `${filename}: OCR found no text in the image` : `${filename} contains no text`,
    );
  }
  return {
    format,
    mimeType,
    pageCount,
    paginated: format === "pdf" || format === "pptx" || format === "image",
    blocks,
    ...(language ? { language } : {}),
    ...(properties ? { properties } : {}),
  };
}
