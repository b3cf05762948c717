/**
 * Bounds on what a compressed container (a DOCX's XML parts, a PDF's Flate streams) may inflate
 * to. They are checked while inflating, so a bomb is refused after at most the size limit of
 * output, never after the whole of it. DOCX XML has its own, lower size limit: mammoth holds it
 * as a tree of about 100 times its size (measured: 8 MiB of document.xml peaked at +1 GB).
 */
import { DocumentInputError } from "./errors.ts";

export type DecompressionLimits = {
  /** Total bytes every inflated stream of one PDF may add up to. */
  maxDecompressedBytes: number;
  /** Total bytes the XML parts of one DOCX may inflate to. */
  maxDocxXmlBytes: number;
  /** Largest inflated/compressed ratio of one entry or stream, checked once it passes RATIO_GRACE_BYTES. */
  maxCompressionRatio: number;
};

export const DEFAULT_DECOMPRESSION_LIMITS: DecompressionLimits = {
  maxDecompressedBytes: 32 * 1024 * 1024,
  maxDocxXmlBytes: 8 * 1024 * 1024,
  maxCompressionRatio: 100,
};

/** One container's budget: its size limit with the flag that sets it, and the ratio limit. */
export type InflationLimit = { maxBytes: number; flag: string; maxRatio: number };

export const pdfInflationLimit = (limits: DecompressionLimits): InflationLimit => ({
  maxBytes: limits.maxDecompressedBytes,
  flag: "--max-decompressed-bytes",
  maxRatio: limits.maxCompressionRatio,
});

export const docxInflationLimit = (limits: DecompressionLimits): InflationLimit => ({
  maxBytes: limits.maxDocxXmlBytes,
  flag: "--max-docx-xml-bytes",
  maxRatio: limits.maxCompressionRatio,
});

/** Small parts (styles, settings) legitimately compress far beyond any ratio a document body reaches. */
export const RATIO_GRACE_BYTES = 1024 * 1024;

/** The file would inflate beyond a limit; `flag` names the setting that allows more. */
export class DecompressionLimitError extends DocumentInputError {
  override readonly name = "DecompressionLimitError";
  constructor(
    message: string,
    readonly limit: "decompressed_size" | "compression_ratio",
    readonly flag: string,
  ) {
    super(message);
  }
}

/** Counts one document's inflated bytes against the limits; `add` throws as soon as one is passed. */
export class InflationBudget {
  #total = 0;

  constructor(readonly limit: InflationLimit) {}

  /** `inflated` and `compressed` are the running sizes of one entry, `chunk` the bytes just produced. */
  add(what: string, chunk: number, inflated: number, compressed: number): void {
    this.#total += chunk;
    if (this.#total > this.limit.maxBytes) throw tooLarge(`inflates to more than ${this.limit.maxBytes} bytes (at ${what})`, this.limit);
    if (inflated > RATIO_GRACE_BYTES && inflated > compressed * this.limit.maxRatio) throw tooCompressed(`${what} inflates more than ${this.limit.maxRatio} times its compressed size`);
  }
}

/**
 * The parser's thread ran past its watchdog (time, or the process's memory growth while it parsed) and
 * was stopped: the document cannot be read within the server's limits. `flag` names the setting.
 */
export class ParseLimitError extends DocumentInputError {
  override readonly name = "ParseLimitError";
  constructor(
    message: string,
    readonly limit: "parse_time" | "parse_memory",
    readonly flag: string,
  ) {
    super(message);
  }
}

export function tooLarge(what: string, limit: InflationLimit): DecompressionLimitError {
  return new DecompressionLimitError(`${what} (${limit.flag})`, "decompressed_size", limit.flag);
}

export function tooCompressed(what: string): DecompressionLimitError {
  return new DecompressionLimitError(`${what} (--max-compression-ratio)`, "compression_ratio", "--max-compression-ratio");
}
