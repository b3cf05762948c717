/** A scanned page as an image file (PNG, JPEG, TIFF) → blocks, by OCR, laid out like a PDF page. */
import { imageTextItems, withOcrConfidence } from "./ocr-pages.ts";
import type { OcrFiles } from "./ocr.ts";
import { measureTypography, pageBlocks } from "./pdf-blocks.ts";
import { pageLines } from "./pdf-lines.ts";
import type { Block } from "./types.ts";

/** One page: TIFF files with several pages are read up to their first (Tesseract's image reader takes one). */
export async function parseImage(bytes: Uint8Array, files: OcrFiles): Promise<{ blocks: Block[]; pageCount: number }> {
  const { items, confidence } = await imageTextItems(bytes, files);
  const lines = pageLines(items);
  const blocks = pageBlocks(lines, 1, { typography: measureTypography([lines]), pageCount: 1, outlineDepth: 0 });
  return { blocks: withOcrConfidence(blocks, new Map([[1, confidence]])), pageCount: 1 };
}
