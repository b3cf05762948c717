/** Public face of document parsing: bytes → ParsedDocument, and the errors that reject an upload. */
export { parseDocument } from "./parse-document.ts";
export { ParserThread, ParserThreadError, type ParseWatchdog } from "./parser-thread.ts";
export { OneAtATime } from "./one-at-a-time.ts";
export { detectFormat, type DetectedFormat } from "./detect-format.ts";
export { CorruptFileError, DocumentInputError, EmptyFileError, OcrUnavailableError, UnsupportedFormatError } from "./errors.ts";
export type { Block, BlockKind, DocumentFormat, ParsedDocument, TableData } from "./types.ts";
export { DecompressionLimitError, DEFAULT_DECOMPRESSION_LIMITS, ParseLimitError, type DecompressionLimits } from "./limits.ts";
