/**
 * Reads an upload request, multipart or JSON, into the file's bytes and the upload options,
 * enforcing the size limit. Every rejection names the field at fault.
 */
import type { z } from "zod";
import { BodyTooLargeError, readBoundedBody } from "../http/bounded-body";
import { badRequest, httpError } from "../http/errors";
import { describeZodIssues } from "../http/validation";
import type { Logger } from "../logging/logger";
import type { DocumentParser } from "./document-parser";
import { jsonUploadBody, multipartUploadFields, PLAIN_FILE_NAME, type UploadOptions } from "./model";
import {
  CorruptFileError,
  DecompressionLimitError,
  OcrUnavailableError,
  ParserThreadError,
  EmptyFileError,
  ParseLimitError,
  UnsupportedFormatError,
  type ParsedDocument,
} from "./parsing";

export type Upload = { filename: string; bytes: Uint8Array; declaredMime: string | undefined; options: UploadOptions };

const tooLarge = (limit: number) => httpError(413, "file_too_large", `file: larger than the upload limit of ${limit} bytes (--max-upload-bytes)`);

/**
 * The upload route reads its own body (the server hands it on unread, src/http/body-deadline.ts):
 * an upload is admitted first (admission.ts), so one turned away costs no memory.
 */
export function isDocumentUpload(url: URL): boolean {
  return url.pathname === "/api/documents" || url.pathname === "/api/documents/";
}

export async function readUpload(request: Request, maxBytes: number): Promise<Upload> {
  const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase() ?? "";
  if (type !== "multipart/form-data" && type !== "application/json") {
    throw httpError(415, "unsupported_media_type", "send multipart/form-data (field file) or application/json (filename with content_base64 or text)");
  }
  // Base64 inflates by 4/3: a body that cannot hold a file within the limit is refused before (or while) it is read.
  const body = await readBoundedBody(request, Math.ceil(maxBytes * (4 / 3)) + 64 * 1024).catch((error: Error) => {
    if (error instanceof BodyTooLargeError) throw tooLarge(maxBytes);
    // The body's deadline (--body-timeout-ms) passed, or the client went away; its connection is closed.
    throw httpError(408, "request_timeout", error.message.startsWith("body:") ? error.message : "body: the connection failed while it was sent");
  });
  return type === "multipart/form-data" ? readMultipart(Buffer.from(body.buffer, body.byteOffset, body.byteLength), request.headers.get("content-type")!, maxBytes) : readJson(body, maxBytes);
}

async function readMultipart(body: Buffer, contentType: string, maxBytes: number): Promise<Upload> {
  assertNoNulInPartHeaders(body, contentType);
  const form = await new Response(body, { headers: { "content-type": contentType } }).formData().catch(() => {
    throw badRequest("body: not a readable multipart/form-data body");
  });
  const file = form.get("file");
  if (file === null) throw badRequest("file: required (a multipart file field named file)");
  if (typeof file === "string") throw badRequest("file: must be a file part, not a text field");
  if (form.getAll("file").length > 1) throw badRequest("file: send one file per upload");
  if (file.size > maxBytes) throw tooLarge(maxBytes);
  const fields: Record<string, string> = {};
  for (const [key, value] of form.entries()) {
    if (key === "file") continue;
    if (typeof value !== "string") throw badRequest(`${key}: must be a text field`);
    fields[key] = value;
  }
  // The part's own name is checked like a filename field (it may carry a client-side path).
  const { filename, ...options } = parse(multipartUploadFields, { filename: file.name, ...fields });
  return { filename, bytes: new Uint8Array(await file.arrayBuffer()), declaredMime: options.mime_type ?? (file.type || undefined), options };
}

/**
 * Bun's multipart parser ends a header parameter at a NUL byte: a file part named `a\0b.md`
 * arrives as `a`, a field named `file\0x` as `file`, and the checks after it see a clean name.
 * So the part headers are checked as sent, before the form is parsed. (Field values keep their
 * NUL bytes; the schema refuses them where they do not belong.)
 */
function assertNoNulInPartHeaders(body: Buffer, contentType: string): void {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) return; // not readable as a form: formData() says so
  const delimiter = `--${boundary[1] ?? boundary[2]}`;
  for (let at = body.indexOf(delimiter); at !== -1; at = body.indexOf(`\r\n${delimiter}`, at)) {
    at += delimiter.length + (body[at] === 0x0d ? 2 : 0);
    const headersEnd = body.indexOf("\r\n\r\n", at);
    if (body.toString("latin1", at, at + 2) === "--" || headersEnd === -1) return; // the closing delimiter
    const headers = body.subarray(at, headersEnd);
    if (!headers.includes(0)) continue;
    if (/filename\*?="?[^";\r\n]*\0/.test(headers.toString("latin1"))) throw badRequest(`body.filename: ${PLAIN_FILE_NAME}`);
    throw badRequest("body: a multipart part header holds a NUL byte (in a field name or parameter)");
  }
}

function readJson(body: Uint8Array, maxBytes: number): Upload {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw httpError(400, "invalid_json", "body: not valid JSON");
  }
  const { filename, content_base64, text, ...options } = parse(jsonUploadBody, raw);
  const bytes = text !== undefined ? new TextEncoder().encode(text) : new Uint8Array(Buffer.from(content_base64!, "base64"));
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  return { filename, bytes, declaredMime: options.mime_type, options };
}

function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(describeZodIssues("body", result.error.issues));
  return result.data;
}

/**
 * Parses the file, turning the parser's rejections into 415 (unsupported), 422 (corrupt,
 * suspiciously compressed, or not readable within the parser thread's time or memory), 413
 * (inflates beyond the limit), 400 (empty) or 503 (the parser's thread or the OCR engine failed, not the file).
 */
export async function parseUploadedFile(upload: Upload, parser: DocumentParser, log: Logger): Promise<ParsedDocument> {
  try {
    return await parser.parse(upload.filename, upload.bytes, upload.declaredMime);
  } catch (error) {
    const message = `file: ${(error as Error).message}`;
    if (error instanceof DecompressionLimitError) {
      if (error.limit === "decompressed_size") throw httpError(413, "decompressed_too_large", message);
      throw httpError(422, "compression_ratio_too_high", message);
    }
    if (error instanceof ParseLimitError) throw httpError(422, error.limit === "parse_time" ? "parse_timeout" : "parse_memory_exceeded", message);
    if (error instanceof OcrUnavailableError) {
      log.error("OCR unavailable", { filename: upload.filename, error: error.message });
      throw httpError(503, "ocr_unavailable", message);
    }
    if (error instanceof ParserThreadError) {
      log.error("document parser thread failed", { filename: upload.filename, error: error.message });
      throw httpError(503, "parser_unavailable", message);
    }
    if (error instanceof UnsupportedFormatError) throw httpError(415, "unsupported_format", message);
    if (error instanceof EmptyFileError) throw httpError(400, "empty_file", message);
    if (error instanceof CorruptFileError) throw httpError(422, "corrupt_file", message);
    // A parser library choking on malformed input: the file is at fault as far as the client can act on it.
    log.warn("document parser failed", { filename: upload.filename, error });
    throw httpError(422, "unreadable_file", `file: cannot be read as ${upload.filename.split(".").pop()} (${(error as Error).message})`);
  }
}
