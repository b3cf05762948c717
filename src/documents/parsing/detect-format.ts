/**
 * Decide which parser reads an upload. The bytes win over the name: magic numbers first,
 * then the extension, then the declared MIME type, then a sniff of the text itself.
 */
import { codeLanguageForExtension, codeMimeType } from "./code-languages.ts";
import { looksBinary } from "./decode-text.ts";
import { CorruptFileError, EmptyFileError, UnsupportedFormatError } from "./errors.ts";
import type { DocumentFormat } from "./types.ts";

export type DetectedFormat = {
  format: DocumentFormat;
  mimeType: string;
  /** Set for source code. */
  language?: string;
};

const PDF_MIME = "application/pdf";
const DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

const SUPPORTED = "supported: PDF, DOCX, HTML, Markdown, plain text, source code";

/** Binary formats people commonly upload by mistake, named so the error says what the file is. */
const KNOWN_BINARIES: { name: string; signature: number[] }[] = [
  { name: "a PNG image", signature: [0x89, 0x50, 0x4e, 0x47] },
  { name: "a JPEG image", signature: [0xff, 0xd8, 0xff] },
  { name: "a GIF image", signature: [0x47, 0x49, 0x46, 0x38] },
  { name: "a gzip archive", signature: [0x1f, 0x8b] },
  { name: "a legacy Office file (.doc/.xls/.ppt)", signature: [0xd0, 0xcf, 0x11, 0xe0] },
  { name: "an executable", signature: [0x7f, 0x45, 0x4c, 0x46] },
];

const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04];

export function detectFormat(filename: string, bytes: Uint8Array, declaredMime?: string): DetectedFormat {
  if (bytes.length === 0) throw new EmptyFileError(`${filename} is empty (0 bytes)`);
  const extension = extensionOf(filename);
  const mime = declaredMime?.split(";")[0].trim().toLowerCase();

  if (hasPdfHeader(bytes)) return { format: "pdf", mimeType: PDF_MIME };
  if (startsWith(bytes, ZIP_SIGNATURE)) {
    if (extension === "docx" || mime === DOCX_MIME || containsAscii(bytes, "word/document.xml")) {
      return { format: "docx", mimeType: DOCX_MIME };
    }
    throw new UnsupportedFormatError(`${filename} is a zip archive but not a Word document (${SUPPORTED})`);
  }
  if (extension === "pdf" || mime === PDF_MIME) {
    throw new CorruptFileError(`${filename} is not a readable PDF: the %PDF- header is missing`);
  }
  if (extension === "docx" || mime === DOCX_MIME) {
    throw new CorruptFileError(`${filename} is not a readable .docx: it is not a zip archive`);
  }
  const known = KNOWN_BINARIES.find((binary) => startsWith(bytes, binary.signature));
  if (known) throw new UnsupportedFormatError(`${filename} is ${known.name} (${SUPPORTED})`);
  if (looksBinary(bytes)) throw new UnsupportedFormatError(`${filename} is binary data in no supported format (${SUPPORTED})`);
  return detectTextFormat(extension, mime, bytes);
}

function detectTextFormat(extension: string, mime: string | undefined, bytes: Uint8Array): DetectedFormat {
  if (["md", "markdown", "mdx"].includes(extension)) return { format: "markdown", mimeType: "text/markdown" };
  if (["html", "htm", "xhtml"].includes(extension)) return { format: "html", mimeType: "text/html" };
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
