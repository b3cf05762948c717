/**
 * pdf.js inflates a PDF's Flate streams (page contents, fonts) whole, with no bound. Before it
 * opens a file, every zlib-wrapped stream but images (text extraction never decodes those) is
 * inflated here in small steps against the InflationBudget, so a Flate bomb is refused after at
 * most the limit. Streams that are not plain zlib (encrypted, LZW) are left to pdf.js.
 */
import { Unzlib } from "fflate";
import { TimeSlice } from "../time-slice.ts";
import { DecompressionLimitError, InflationBudget, pdfInflationLimit, type DecompressionLimits } from "./limits.ts";

const PUSH_BYTES = 16 * 1024;
/** How far back from `stream` the stream's dictionary is looked for. */
const DICTIONARY_WINDOW = 2048;

export async function checkPdfStreams(bytes: Uint8Array, limits: DecompressionLimits): Promise<void> {
  const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const budget = new InflationBudget(pdfInflationLimit(limits));
  const slice = new TimeSlice();
  for (let at = pdf.indexOf("stream"); at >= 0; at = pdf.indexOf("stream", at + 6)) {
    if (at >= 3 && pdf.toString("latin1", at - 3, at) === "end") continue;
    const start = dataStart(pdf, at + 6);
    if (start === null || !isZlibHeader(pdf[start], pdf[start + 1])) continue;
    if (isImage(pdf.toString("latin1", Math.max(0, at - DICTIONARY_WINDOW), at))) continue;
    const endstream = pdf.indexOf("endstream", start);
    const end = endstream < 0 ? pdf.length : endstream;
    inflateCounted(pdf.subarray(start, end), `the stream at byte ${at}`, budget);
    at = end;
    await slice.pause();
  }
}

function inflateCounted(data: Uint8Array, what: string, budget: InflationBudget): void {
  let inflated = 0;
  let compressed = 0;
  const inflater = new Unzlib((chunk) => {
    inflated += chunk.length;
    budget.add(what, chunk.length, inflated, compressed);
  });
  try {
    for (let offset = 0; offset < data.length; offset += PUSH_BYTES) {
      compressed = Math.min(data.length, offset + PUSH_BYTES);
      inflater.push(data.subarray(offset, offset + PUSH_BYTES), offset + PUSH_BYTES >= data.length);
    }
  } catch (error) {
    // A damaged stream is pdf.js's to judge; only a passed limit refuses the file here.
    if (error instanceof DecompressionLimitError) throw error;
  }
}

/** After the `stream` keyword: CRLF or LF (a lone CR is tolerated), then the data. */
function dataStart(pdf: Buffer, after: number): number | null {
  if (pdf[after] === 0x0d) return pdf[after + 1] === 0x0a ? after + 2 : after + 1;
  if (pdf[after] === 0x0a) return after + 1;
  return null;
}

function isZlibHeader(cmf: number | undefined, flg: number | undefined): boolean {
  return cmf !== undefined && flg !== undefined && (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}

/** The dictionary right before the stream (after the last `obj`) names an image. */
function isImage(before: string): boolean {
  const dictionary = before.slice(before.lastIndexOf("obj") + 1);
  return /\/Subtype\s*\/Image\b/.test(dictionary);
}
