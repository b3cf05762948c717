/**
 * The DOCX reader's thread (see docx-thread.ts): mammoth builds a tree of the XML tens of times its
 * size and walks it without yielding; here that costs this thread, never the server's event loop.
 * One DOCX at a time; the blocks, or what went wrong, go back to the main thread.
 */
import { parseDocx } from "./docx-parser.ts";
import type { DocxParseFailure, FromDocxWorker, ToDocxWorker } from "./docx-thread.ts";
import { CorruptFileError } from "./errors.ts";
import { DecompressionLimitError } from "./limits.ts";

declare const self: Worker;

const reply = (message: FromDocxWorker) => self.postMessage(message);

function failure(error: unknown): DocxParseFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof DecompressionLimitError) return { kind: "decompression_limit", message, limit: error.limit, flag: error.flag };
  if (error instanceof CorruptFileError) return { kind: "corrupt", message };
  return { kind: "other", message };
}

self.onmessage = async ({ data }: MessageEvent<ToDocxWorker>) => {
  try {
    reply({ type: "parsed", id: data.id, blocks: await parseDocx(data.bytes, data.limits) });
  } catch (error) {
    reply({ type: "failed", id: data.id, error: failure(error) });
  }
  // An idle thread would otherwise keep the parse's garbage (the XML tree, the HTML) until its next parse.
  Bun.gc(true);
};

reply({ type: "ready" });
