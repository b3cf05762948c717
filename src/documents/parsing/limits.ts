/**
 * Bounds on what a compressed container (DOCX zip entries, PDF Flate streams) may inflate to.
 * They are checked while inflating, so a bomb is refused after at most `maxDecompressedBytes`
 * of output, never after the whole of it.
 */
import { DocumentInputError } from "./errors.ts";

export type DecompressionLimits = {
  /** Total bytes every inflated entry or stream of one document may add up to. */
  maxDecompressedBytes: number;
  /** Largest inflated/compressed ratio of one entry or stream, checked once it passes RATIO_GRACE_BYTES. */
  maxCompressionRatio: number;
};

export const DEFAULT_DECOMPRESSION_LIMITS: DecompressionLimits = { maxDecompressedBytes: 32 * 1024 * 1024, maxCompressionRatio: 100 };

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

  constructor(readonly limits: DecompressionLimits) {}

  /** `inflated` and `compressed` are the running sizes of one entry, `chunk` the bytes just produced. */
  add(what: string, chunk: number, inflated: number, compressed: number): void {
    this.#total += chunk;
    const { maxDecompressedBytes, maxCompressionRatio } = this.limits;
    if (this.#total > maxDecompressedBytes) {
      throw new DecompressionLimitError(
        `inflates to more than ${maxDecompressedBytes} bytes (at ${what}; --max-decompressed-bytes)`,
        "decompressed_size",
        "--max-decompressed-bytes",
      );
    }
    if (inflated > RATIO_GRACE_BYTES && inflated > compressed * maxCompressionRatio) {
      throw new DecompressionLimitError(
        `${what} inflates more than ${maxCompressionRatio} times its compressed size (--max-compression-ratio)`,
        "compression_ratio",
        "--max-compression-ratio",
      );
    }
  }
}
