/**
 * Decide which parser reads an upload. The bytes win over the name: magic numbers first,
 * then the extension, then the declared MIME type, then a sniff of the text itself.
 */
import { codeLanguageForExtension, codeMimeType } from "./code-languages.ts";
import { looksBinary } from "./decode-text.ts";
import { CorruptFileError, EmptyFileError, UnsupportedFormatError } from "./errors.ts";
import type { ThreadedFormat } from "./parse-document.ts";
import type { DocumentFormat } from "./types.ts";

export type DetectedFormat = {
  format: DocumentFormat;
  mimeType: string;
  /** Set for source code. */
  language?: string;
  /** Set for the formats read in the parser thread: which reader. */
  reader?: ThreadedFormat;
};

const PDF_MIME = "application/pdf";
const DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const PPTX_MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
const EPUB_MIME = "application/epub+zip";
const EML_MIME = "message/rfc822";
const MSG_MIME = "application/vnd.ms-outlook";

const SUPPORTED = "supported: PDF, DOCX, XLSX, PPTX, EPUB, EML, Outlook MSG, CSV/TSV, HTML, Markdown, plain text, source code, PNG/JPEG/TIFF images (OCR)";

/** Scanned pages as image files, read by OCR. */
const IMAGE_FORMATS: { mimeType: string; signature: number[] }[] = [
  { mimeType: "image/png", signature: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { mimeType: "image/jpeg", signature: [0xff, 0xd8, 0xff] },
  { mimeType: "image/tiff", signature: [0x49, 0x49, 0x2a, 0x00] },
  { mimeType: "image/tiff", signature: [0x4d, 0x4d, 0x00, 0x2a] },
];

/** The zip-based formats, told apart by the part only they have (its name is stored uncompressed in the zip). */
const ZIP_FORMATS: { format: DocumentFormat & ThreadedFormat; mimeType: string; extension: string; part: string; name: string }[] = [
  { format: "docx", mimeType: DOCX_MIME, extension: "docx", part: "word/document.xml", name: "Word document" },
  { format: "xlsx", mimeType: XLSX_MIME, extension: "xlsx", part: "xl/workbook.xml", name: "Excel workbook" },
  { format: "pptx", mimeType: PPTX_MIME, extension: "pptx", part: "ppt/presentation.xml", name: "PowerPoint presentation" },
  { format: "epub", mimeType: EPUB_MIME, extension: "epub", part: "application/epub+zip", name: "EPUB book" },
];

/** Binary formats people commonly upload by mistake, named so the error says what the file is. */
const KNOWN_BINARIES: { name: string; signature: number[] }[] = [
  { name: "a GIF image", signature: [0x47, 0x49, 0x46, 0x38] },
  { name: "a gzip archive", signature: [0x1f, 0x8b] },
  { name: "a legacy Office file (.doc/.xls/.ppt)", signature: [0xd0, 0xcf, 0x11, 0xe0] },
  { name: "an executable", signature: [0x7f, 0x45, 0x4c, 0x46] },
];

const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04];
const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
/** Every Outlook .msg has this stream; its name is stored in UTF-16 in the compound file's directory. */
const MSG_STREAM = Buffer.from("__properties_version1.0", "utf16le");

export function detectFormat(filename: string, bytes: Uint8Array, declaredMime?: string): DetectedFormat {
  if (bytes.length === 0) throw new EmptyFileError(`${filename} is empty (0 bytes)`);
  const extension = extensionOf(filename);
  const mime = declaredMime?.split(";")[0].trim().toLowerCase();

  if (hasPdfHeader(bytes)) return { format: "pdf", mimeType: PDF_MIME, reader: "pdf" };
  const image = IMAGE_FORMATS.find((candidate) => startsWith(bytes, candidate.signature));
  if (image) return { format: "image", mimeType: image.mimeType, reader: "image" };
  if (startsWith(bytes, ZIP_SIGNATURE)) {
    const named = ZIP_FORMATS.find((zip) => extension === zip.extension || mime === zip.mimeType);
    const found = ZIP_FORMATS.find((zip) => containsAscii(bytes, zip.part)) ?? named;
    if (found) return { format: found.format, mimeType: found.mimeType, reader: found.format };
    throw new UnsupportedFormatError(`${filename} is a zip archive but not a Word, Excel, PowerPoint or EPUB document (${SUPPORTED})`);
  }
  if (startsWith(bytes, OLE_SIGNATURE) && (extension === "msg" || mime === MSG_MIME || Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(MSG_STREAM))) {
    return { format: "email", mimeType: MSG_MIME, reader: "msg" };
  }
  if (extension === "pdf" || mime === PDF_MIME) {
    throw new CorruptFileError(`${filename} is not a readable PDF: the %PDF- header is missing`);
  }
  const zipNamed = ZIP_FORMATS.find((zip) => extension === zip.extension || mime === zip.mimeType);
  if (zipNamed) throw new CorruptFileError(`${filename} is not a readable .${zipNamed.extension}: it is not a zip archive`);
  if (extension === "msg" || mime === MSG_MIME) throw new CorruptFileError(`${filename} is not a readable Outlook message: it is not a compound file`);
  const known = KNOWN_BINARIES.find((binary) => startsWith(bytes, binary.signature));
  if (known) throw new UnsupportedFormatError(`${filename} is ${known.name} (${SUPPORTED})`);
  if (looksBinary(bytes)) throw new UnsupportedFormatError(`${filename} is binary data in no supported format (${SUPPORTED})`);
  return detectTextFormat(extension, mime, bytes);
}

function detectTextFormat(extension: string, mime: string | undefined, bytes: Uint8Array): DetectedFormat {
  if (["md", "markdown", "mdx"].includes(extension)) return { format: "markdown", mimeType: "text/markdown" };
  if (["html", "htm", "xhtml"].includes(extension)) return { format: "html", mimeType: "text/html" };
  if (extension === "csv" || mime === "text/csv") return { format: "csv", mimeType: "text/csv" };
  if (extension === "tsv" || extension === "tab" || mime === "text/tab-separated-values") return { format: "csv", mimeType: "text/tab-separated-values" };
  if (extension === "eml" || mime === EML_MIME) return { format: "email", mimeType: EML_MIME, reader: "eml" };
  const language = codeLanguageForExtension(extension);
  if (language) return { format: "code", mimeType: codeMimeType(language), language };
  if (mime === "text/html") return { format: "html", mimeType: "text/html" };
  if (mime === "text/markdown" || mime === "text/x-markdown") return { format: "markdown", mimeType: "text/markdown" };
  // An unnamed text file that opens like a web page is one.
  const opening = new TextDecoder().decode(bytes.subarray(0, 512)).trimStart().toLowerCase();
  if (opening.startsWith("<!doctype html") || opening.startsWith("<html")) return { format: "html", mimeType: "text/html" };
  return { format: "text", mimeType: "text/plain" };
}

function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf(".");
  return dot < 0 ? "" : filename.slice(dot + 1).toLowerCase();
}

/** The PDF spec lets %PDF- appear anywhere in the first 1024 bytes. */
function hasPdfHeader(bytes: Uint8Array): boolean {
  return containsAscii(bytes.subarray(0, 1024), "%PDF-");
}

function startsWith(bytes: Uint8Array, signature: number[]): boolean {
  return signature.every((byte, i) => bytes[i] === byte);
}

function containsAscii(bytes: Uint8Array, needle: string): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(needle, 0, "latin1");
}
