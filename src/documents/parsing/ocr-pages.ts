/**
 * OCR'd pages join the PDF reader's path: their words become text items like a text layer's, so
 * lines, paragraphs, headings (from line height), tables (from column gaps) and page furniture
 * are found the same way on a scan as on a born-digital page.
 */
import { extractImages, type StructuredTextItem } from "unpdf";
import { grayImage, recognizeImage, type OcrFiles, type OcrImage, type OcrPage } from "./ocr.ts";
import type { Block } from "./types.ts";

type PdfDocument = Parameters<typeof extractImages>[0] & { getPage(page: number): Promise<{ view: number[] }> };

/** Pixels → page units: the image stretched over the page (a scan's single image), y up from the bottom like PDF space. */
type Placement = { scale: number; pageHeight: number };

/** Smaller images (logos, rules, bullets) are not a scanned page. */
const MIN_SCAN_PIXELS = 200 * 200;

export type OcrTextPage = { items: StructuredTextItem[]; confidence: number };

/** An image file's words as text items (pixel units, first line on top). */
export async function imageTextItems(image: OcrImage, files: OcrFiles): Promise<OcrTextPage> {
  return asTextItems(await recognizeImage(image, files), { scale: 1, pageHeight: 0 });
}

/**
 * A PDF page without a text layer, read from its largest image when that is big enough to be a
 * scan: pdf.js decodes the image (DCT, Flate, and the other filters it knows) without rendering the
 * page. Null when the page has no such image. 1-bit images (CCITT, JBIG2) pdf.js hands over packed are not read.
 */
export async function scannedPdfPage(pdf: PdfDocument, pageNumber: number, files: OcrFiles): Promise<OcrTextPage | null> {
  const images = await extractImages(pdf, pageNumber);
  const largest = images.reduce<(typeof images)[number] | undefined>((best, image) => (!best || image.width * image.height > best.width * best.height ? image : best), undefined);
  if (!largest || largest.width * largest.height < MIN_SCAN_PIXELS) return null;
  const [left = 0, bottom = 0, right = 0, top = 0] = (await pdf.getPage(pageNumber)).view;
  const page = await recognizeImage(grayImage(largest.data, largest.width, largest.height, largest.channels), files);
  return asTextItems(page, { scale: (right - left) / largest.width, pageHeight: top - bottom });
}

function asTextItems(page: OcrPage, { scale, pageHeight }: Placement): OcrTextPage {
  const items = page.words.map((word) => ({
    str: word.text,
    x: word.x * scale,
    y: pageHeight - word.baseline * scale,
    width: (word.right - word.x) * scale,
    height: word.fontSize * scale,
    fontSize: word.fontSize * scale,
    fontFamily: "",
    dir: "ltr",
    hasEOL: false,
  }));
  return { items, confidence: page.confidence };
}

/** Marks the blocks of OCR'd pages with their page's confidence. */
export function withOcrConfidence(blocks: Block[], confidenceByPage: Map<number, number>): Block[] {
  return blocks.map((block) => {
    const confidence = block.page === null ? undefined : confidenceByPage.get(block.page);
    return confidence === undefined ? block : { ...block, ocrConfidence: confidence };
  });
}
