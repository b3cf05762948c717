/**
 * Reads a zip (a DOCX) without trusting it: the central directory's declared sizes are checked
 * first, then every entry is inflated in small steps against an InflationBudget (declared sizes
 * can lie), so a bomb stops after at most the limit. What comes out is packed again, stored
 * uncompressed, so the parser library reads exactly the bytes that were counted.
 */
import { Unzip, UnzipInflate, unzipSync, zipSync, type Unzipped } from "fflate";
import { CorruptFileError } from "./errors.ts";
import { DecompressionLimitError, InflationBudget, RATIO_GRACE_BYTES, tooCompressed, tooLarge, type InflationLimit } from "./limits.ts";

/** Compressed bytes handed to the inflater per step: one step can produce at most ~1032 times this. */
const PUSH_BYTES = 16 * 1024;

/**
 * The zip's entries, inflated within the limits; throws DecompressionLimitError or CorruptFileError.
 * Entries `wanted` rejects are neither inflated nor counted: they come back empty.
 */
export function unzipWithinLimits(bytes: Uint8Array, limit: InflationLimit, wanted: (name: string) => boolean): Unzipped {
  checkDeclaredSizes(bytes, limit, wanted);
  const budget = new InflationBudget(limit);
  const files: Unzipped = {};
  const failures: Error[] = [];
  // Bytes handed to the unzipper so far: an entry's compressed size is counted from the push in
  // which it started (an over-estimate, so the ratio is never over-stated), not from its headers.
  let pushedBefore = 0;
  let pushed = 0;
  const unzip = new Unzip((file) => {
    if (!wanted(file.name)) {
      files[file.name] = new Uint8Array(0);
      return;
    }
    const startedAt = pushedBefore;
    const pieces: Uint8Array<ArrayBuffer>[] = [];
    let inflated = 0;
    file.ondata = (error, chunk, final) => {
      if (error) return void failures.push(error);
      inflated += chunk.length;
      pieces.push(chunk);
      // Throwing here unwinds out of unzip.push(): no further byte is inflated.
      budget.add(file.name, chunk.length, inflated, pushed - startedAt);
      if (final) files[file.name] = concat(pieces, inflated);
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    for (let offset = 0; offset < bytes.length; offset += PUSH_BYTES) {
      pushedBefore = offset;
      pushed = Math.min(bytes.length, offset + PUSH_BYTES);
      unzip.push(bytes.subarray(offset, offset + PUSH_BYTES), offset + PUSH_BYTES >= bytes.length);
      if (failures.length > 0) throw failures[0];
    }
  } catch (error) {
    if (error instanceof DecompressionLimitError) throw error;
    throw new CorruptFileError(`not a readable zip archive (${(error as Error).message})`);
  }
  return files;
}

/** The zip rebuilt from its checked entries, stored uncompressed, for a parser that inflates on its own. */
export function repackWithinLimits(bytes: Uint8Array, limit: InflationLimit, wanted: (name: string) => boolean): Uint8Array {
  return zipSync(unzipWithinLimits(bytes, limit, wanted), { level: 0 });
}

/** Refuses an archive whose central directory already admits too much. */
function checkDeclaredSizes(bytes: Uint8Array, limit: InflationLimit, wanted: (name: string) => boolean): void {
  let declaredTotal = 0;
  try {
    unzipSync(bytes, {
      filter: ({ name, size, originalSize }) => {
        if (!wanted(name)) return false;
        declaredTotal += originalSize;
        if (originalSize > RATIO_GRACE_BYTES && originalSize > size * limit.maxRatio) {
          throw tooCompressed(`${name} declares ${originalSize} bytes from ${size} compressed, more than ${limit.maxRatio} times`);
        }
        return false;
      },
    });
  } catch (error) {
    if (error instanceof DecompressionLimitError) throw error;
    throw new CorruptFileError(`not a readable zip archive (${(error as Error).message})`);
  }
  if (declaredTotal > limit.maxBytes) throw tooLarge(`declares ${declaredTotal} bytes once unzipped, more than ${limit.maxBytes}`, limit);
}

function concat(pieces: Uint8Array<ArrayBuffer>[], length: number): Uint8Array<ArrayBuffer> {
  if (pieces.length === 1) return pieces[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}
