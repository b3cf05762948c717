/**
 * Why an uploaded file was rejected. Each class is its own type so the HTTP layer can map
 * them to distinct statuses (unsupported 415, corrupt 422, empty 400) with `instanceof`.
 */

/** Common base, so callers can catch "the file is the problem" as one case. */
export class DocumentInputError extends Error {}

/** The bytes are not a format we parse (a GIF, a legacy Office file, an unknown binary). */
export class UnsupportedFormatError extends DocumentInputError {
  override readonly name = "UnsupportedFormatError";
}

/** The format is recognised but the file cannot be read (truncated PDF, a .docx that is not a zip). */
export class CorruptFileError extends DocumentInputError {
  override readonly name = "CorruptFileError";
}

/** Zero bytes, or a readable file with no text in it (whitespace only, a blank scan). */
export class EmptyFileError extends DocumentInputError {
  override readonly name = "EmptyFileError";
}

/** The OCR engine or its language data could not be loaded: the server's fault, not the file's. */
export class OcrUnavailableError extends Error {
  override readonly name = "OcrUnavailableError";
}
