/**
 * The server's parser: every parse (uploads, and jobs parsing stored bytes) runs one at a time, so
 * a parser's peak memory (mammoth holds a DOCX's XML as a tree, tens of times its size) is paid once
 * per server, not once per concurrent parse; PDF and DOCX are read in a thread of their own, under a
 * watchdog, so they never hold the event loop (text formats parse in a few milliseconds per MB).
 */
import type { Config } from "../config";
import type { Logger } from "../logging/logger";
import { assetPaths } from "../runtime/assets";
import { ocrFiles } from "./parsing/ocr";
import { OneAtATime, ParserThread, parseDocument, type DecompressionLimits, type ParsedDocument, type ParseWatchdog } from "./parsing";

export class DocumentParser {
  readonly #queue = new OneAtATime();
  readonly #thread: ParserThread;
  readonly #limits: DecompressionLimits;
  readonly #watchdog: ParseWatchdog;

  constructor(
    config: Config,
    private readonly log: Logger,
  ) {
    this.#limits = { maxDecompressedBytes: config.maxDecompressedBytes, maxDocxXmlBytes: config.maxDocxXmlBytes, maxCompressionRatio: config.maxCompressionRatio };
    this.#watchdog = { timeoutMs: config.parseTimeoutMs, maxMemoryBytes: config.maxParseMemoryBytes, ocrPageMs: config.parseTimeoutPerOcrPageMs };
    this.#thread = new ParserThread(assetPaths().parserWorker, ocrFiles(config));
  }

  /** Throws the parsers' DocumentInputError subclasses (upload.ts maps them to statuses). */
  parse(filename: string, bytes: Uint8Array, declaredMime: string | undefined): Promise<ParsedDocument> {
    return this.#queue.run(async () => {
      this.log.debug("document parsing", { filename, bytes: bytes.length });
      const parsed = await parseDocument(filename, bytes, declaredMime, this.#limits, (format, document, limits) => this.#thread.parse(format, document, limits, this.#watchdog));
      this.log.debug("document parsed", { filename, blocks: parsed.blocks.length });
      return parsed;
    });
  }

  /** Ends the parser's thread (a parse in progress fails). */
  stop(): void {
    this.#thread.stop();
  }
}
