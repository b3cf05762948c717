/**
 * PDF → blocks, from the text layer (unpdf / pdf.js); every block keeps its real page number. A
 * page with no text layer is read by OCR from its scanned image when it has one (ocr-pages.ts).
 * Running headers and footers are dropped first (pdf-furniture.ts).
 */
import { extractTextItems, getDocumentProxy } from "unpdf";
import { CorruptFileError, OcrUnavailableError } from "./errors.ts";
import { measureTypography, pageBlocks } from "./pdf-blocks.ts";
import { withoutFurniture } from "./pdf-furniture.ts";
import { pageLines } from "./pdf-lines.ts";
import type { DecompressionLimits } from "./limits.ts";
import type { OcrFiles } from "./ocr.ts";
import { scannedPdfPage, withOcrConfidence } from "./ocr-pages.ts";
import { placeOutlineHeadings, readOutline } from "./pdf-outline.ts";
import { checkPdfStreams } from "./pdf-streams.ts";
import type { Block } from "./types.ts";

export type ParsedPdf = { pageCount: number; blocks: Block[] };

export async function parsePdf(bytes: Uint8Array, limits: DecompressionLimits, ocr: OcrFiles): Promise<ParsedPdf> {
  await checkPdfStreams(bytes, limits);
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js takes ownership of the buffer it is given, so hand it a copy.
    pdf = await getDocumentProxy(bytes.slice(), { verbosity: 0 });
  } catch (error) {
    throw new CorruptFileError(`The PDF cannot be opened: ${describe(error)}`);
  }
  try {
    const { totalPages, items } = await extractTextItems(pdf);
    const ocrConfidence = new Map<number, number>();
    for (const [index, pageItems] of items.entries()) {
      if (pageItems.some((item) => item.str.trim() !== "")) continue;
      const scanned = await scannedPdfPage(pdf, index + 1, ocr);
      if (!scanned) continue;
      items[index] = scanned.items;
      ocrConfidence.set(index + 1, scanned.confidence);
    }
    const pages = withoutFurniture(items.map(pageLines));
    const typography = measureTypography(pages);
    // With an outline, its bookmarks are the headings; without, headings are guessed from layout.
    const outline = await readOutline(pdf);
    const marked = outline.length > 0 ? placeOutlineHeadings(pages, outline) : pages;
    const context = { typography, pageCount: totalPages, outlineDepth: Math.max(0, ...outline.map((entry) => entry.level)) };
    return { pageCount: totalPages, blocks: withOcrConfidence(marked.flatMap((lines, i) => pageBlocks(lines, i + 1, context)), ocrConfidence) };
  } catch (error) {
    if (error instanceof OcrUnavailableError) throw error;
    throw new CorruptFileError(`The PDF's text cannot be read: ${describe(error)}`);
  } finally {
    await pdf.loadingTask.destroy();
  }
}

function describe(error: unknown): string {
  if (error instanceof Error && error.name === "PasswordException") return "it is password-protected";
  return error instanceof Error ? error.message : String(error);
}
