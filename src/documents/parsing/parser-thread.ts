/**
 * PDF, DOCX, OOXML, EPUB, e-mail and OCR parsing off the event loop: one long-lived Bun Worker (parser-worker.ts), started on
 * the first such document, runs their parsers. A watchdog stops a parse that runs past its time
 * limit (extended for each page it OCRs) or grows the process's memory past its bound: the worker is terminated (which interrupts
 * even a parse that never yields), the parse fails with ParseLimitError naming the flag, and the
 * next document starts a fresh worker. A worker that cannot start or dies fails its parse with
 * ParserThreadError (the server's fault, not the file's) and is replaced on the next parse the same way.
 *
 * Bun's Worker has no resourceLimits, and a busy worker cannot report its own heap: the main thread
 * samples the process's resident memory instead, against its level when the parse started.
 */
import { CorruptFileError, OcrUnavailableError } from "./errors.ts";
import { DecompressionLimitError, ParseLimitError, type DecompressionLimits } from "./limits.ts";
import { ocrFiles, type OcrFiles } from "./ocr.ts";
import { OneAtATime } from "./one-at-a-time.ts";
import type { ReadResult, ThreadedFormat } from "./parse-document.ts";

/** `ocr`: named by the main thread, which knows this build's files (a worker of the compiled binary does not). */
export type ToParserWorker = { id: number; format: ThreadedFormat; bytes: Uint8Array; limits: DecompressionLimits; ocr: OcrFiles };
export type ParseFailure =
  | { kind: "decompression_limit"; message: string; limit: DecompressionLimitError["limit"]; flag: string }
  | { kind: "corrupt"; message: string }
  | { kind: "ocr_unavailable"; message: string }
  | { kind: "other"; message: string };
export type FromParserWorker =
  | { type: "ready" }
  | ({ type: "parsed"; id: number } & ReadResult)
  | { type: "failed"; id: number; error: ParseFailure }
  /** A page starts to be OCR'd. */
  | { type: "ocr_page"; id: number };

/**
 * Bounds of one parse: wall time from hand-over to the worker to its answer, and growth of the
 * process's resident memory meanwhile. Each page the parse starts to OCR adds `ocrPageMs` to its
 * time (a scan costs seconds a page, a text layer milliseconds), up to MAX_PARSE_MS in all.
 */
export type ParseWatchdog = { timeoutMs: number; maxMemoryBytes: number; ocrPageMs: number };

const PARSE_TIMEOUT_FLAG = "--parse-timeout-ms";
const OCR_PAGE_FLAG = "--parse-timeout-per-ocr-page-ms";
/** The most time any parse gets, OCR allowances included (the largest --parse-timeout-ms): a PDF of thousands of image pages stays bounded. */
const MAX_PARSE_MS = 3_600_000;
const PARSE_MEMORY_FLAG = "--max-parse-memory-bytes";

/** A worker that has not loaded its script by then is given up (ParserThreadError); the parse's own time limit starts after. */
const START_TIMEOUT_MS = 30_000;

/** How often the process's memory is read while a document is parsed. */
const MEMORY_SAMPLE_MS = 20;

/** The parser's thread could not start, died, or was stopped with the server: not the file's fault. */
export class ParserThreadError extends Error {
  override readonly name = "ParserThreadError";
}

const stoppedError = () => new ParserThreadError("the document parser was stopped (the server is stopping)");

type Job = { id: number; settle: (message: FromParserWorker) => void; fail: (error: Error) => void; ocrPage: () => void };
/** `ready` settles when the worker has loaded its script, or rejects when the thread is lost before. */
type Thread = { worker: Worker; ready: Promise<void>; notReady: (error: Error) => void; job?: Job };

export class ParserThread {
  readonly #url: string | URL;
  readonly #ocr: OcrFiles;
  readonly #turns = new OneAtATime();
  #thread: Thread | undefined;
  #lastId = 0;
  #stopped = false;

  /** `workerUrl`: the worker script; the compiled binary passes its embedded copy. `ocr`: by default the built-in English. */
  constructor(workerUrl?: string | URL, ocr: OcrFiles = ocrFiles()) {
    this.#url = workerUrl ?? new URL("./parser-worker.ts", import.meta.url);
    this.#ocr = ocr;
  }

  /** A container format's blocks (PDF, OOXML, EPUB, e-mail), parsed in the worker; one parse at a time, each under its own watchdog. */
  parse(format: ThreadedFormat, bytes: Uint8Array, limits: DecompressionLimits, watchdog: ParseWatchdog): Promise<ReadResult> {
    return this.#turns.run(() => this.#parse(format, bytes, limits, watchdog));
  }

  /** Ends the worker; a parse in progress fails. */
  stop(): void {
    this.#stopped = true;
    if (this.#thread) this.#retire(this.#thread, stoppedError());
  }

  async #parse(format: ThreadedFormat, bytes: Uint8Array, limits: DecompressionLimits, watchdog: ParseWatchdog): Promise<ReadResult> {
    if (this.#stopped) throw stoppedError();
    const thread = (this.#thread ??= this.#spawn());
    thread.worker.ref(); // a parse in progress keeps the process alive; an idle worker does not
    let deadline: Timer | undefined;
    let sampler: Timer | undefined;
    try {
      await thread.ready;
      const stopWith = (error: Error) => this.#retire(thread, error);
      const before = process.memoryUsage.rss();
      const grewTooMuch = () => process.memoryUsage.rss() - before > watchdog.maxMemoryBytes;
      const tooMuchMemory = () =>
        new ParseLimitError(`reading the ${format.toUpperCase()} grew the server's memory by more than ${watchdog.maxMemoryBytes} bytes (${PARSE_MEMORY_FLAG})`, "parse_memory", PARSE_MEMORY_FLAG);
      const started = performance.now();
      let allowedMs = Math.min(watchdog.timeoutMs, MAX_PARSE_MS);
      let ocrPages = 0;
      const tooSlow = () => {
        const allowance = ocrPages > 0 ? ` plus ${ocrPages} OCR'd page${ocrPages > 1 ? "s" : ""} × ${watchdog.ocrPageMs} ms (${OCR_PAGE_FLAG})` : "";
        return new ParseLimitError(`reading the ${format.toUpperCase()} took longer than ${allowedMs} ms (${PARSE_TIMEOUT_FLAG}${allowance})`, "parse_time", PARSE_TIMEOUT_FLAG);
      };
      const armDeadline = () => {
        clearTimeout(deadline);
        deadline = setTimeout(() => stopWith(tooSlow()), Math.max(0, started + allowedMs - performance.now()));
      };
      armDeadline();
      sampler = setInterval(() => grewTooMuch() && stopWith(tooMuchMemory()), MEMORY_SAMPLE_MS);
      const { promise, resolve, reject } = Promise.withResolvers<ReadResult>();
      const id = ++this.#lastId;
      thread.job = {
        id,
        fail: reject,
        ocrPage: () => {
          ocrPages++;
          allowedMs = Math.min(allowedMs + watchdog.ocrPageMs, MAX_PARSE_MS);
          armDeadline();
        },
        settle: (message) => {
          if (message.type === "failed") reject(revive(message.error));
          // Checked once more at the answer, so a parse quicker than one sample is judged too.
          else if (message.type === "parsed") grewTooMuch() ? stopWith(tooMuchMemory()) : resolve({ blocks: message.blocks, pageCount: message.pageCount, ...(message.properties ? { properties: message.properties } : {}) });
        },
      };
      thread.worker.postMessage({ id, format, bytes, limits, ocr: this.#ocr } satisfies ToParserWorker);
      return await promise;
    } finally {
      clearTimeout(deadline);
      clearInterval(sampler);
      thread.job = undefined;
      thread.worker.unref();
    }
  }

  #spawn(): Thread {
    const worker = new Worker(this.#url);
    worker.unref();
    const started = Promise.withResolvers<void>();
    const thread: Thread = { worker, ready: started.promise, notReady: started.reject };
    const lost = (why: string) => this.#retire(thread, new ParserThreadError(`the document parser's thread ${why}`));
    const startDeadline = setTimeout(() => lost(`did not start within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    const settled = () => clearTimeout(startDeadline);
    thread.ready.then(settled, settled); // a rejection is also awaited by the parse that started the thread
    worker.onmessage = ({ data }: MessageEvent<FromParserWorker>) => {
      if (data.type === "ready") started.resolve();
      else if (thread.job?.id !== data.id) return;
      else if (data.type === "ocr_page") thread.job.ocrPage();
      else thread.job.settle(data);
    };
    worker.addEventListener("error", (event) => lost(`failed: ${(event as ErrorEvent).message}`));
    worker.addEventListener("close", () => lost("exited"));
    return thread;
  }

  /** Takes the thread out of service: its parse (or its start) fails with `error`, the next parse starts a new one. */
  #retire(thread: Thread, error: Error): void {
    if (this.#thread === thread) this.#thread = undefined;
    const job = thread.job;
    thread.job = undefined;
    thread.notReady(error);
    job?.fail(error);
    thread.worker.terminate();
  }
}

function revive(failure: ParseFailure): Error {
  if (failure.kind === "decompression_limit") return new DecompressionLimitError(failure.message, failure.limit, failure.flag);
  if (failure.kind === "corrupt") return new CorruptFileError(failure.message);
  if (failure.kind === "ocr_unavailable") return new OcrUnavailableError(failure.message);
  return new Error(failure.message);
}
