/**
 * The document parser's thread (see parser-thread.ts): pdf.js, mammoth and Tesseract work for long stretches
 * without yielding (mammoth builds a tree of the XML tens of times its size); here that costs this
 * thread, never the server's event loop. One document at a time; the blocks, or what went wrong,
 * go back to the main thread.
 */
import { CorruptFileError, OcrUnavailableError } from "./errors.ts";
import { DecompressionLimitError } from "./limits.ts";
import { readThreadedFormat } from "./parse-document.ts";
import type { FromParserWorker, ParseFailure, ToParserWorker } from "./parser-thread.ts";

declare const self: Worker;

const reply = (message: FromParserWorker) => self.postMessage(message);

function failure(error: unknown): ParseFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof DecompressionLimitError) return { kind: "decompression_limit", message, limit: error.limit, flag: error.flag };
  if (error instanceof CorruptFileError) return { kind: "corrupt", message };
  if (error instanceof OcrUnavailableError) return { kind: "ocr_unavailable", message };
  return { kind: "other", message };
}

self.onmessage = async ({ data }: MessageEvent<ToParserWorker>) => {
  try {
    const result = await readThreadedFormat(data.format, data.bytes, data.limits, { ...data.ocr, onPage: () => reply({ type: "ocr_page", id: data.id }) });
    reply({ type: "parsed", id: data.id, ...result });
  } catch (error) {
    reply({ type: "failed", id: data.id, error: failure(error) });
  }
  // An idle thread would otherwise keep the parse's garbage (the XML tree, pdf.js's objects) until its next parse.
  Bun.gc(true);
};

reply({ type: "ready" });
