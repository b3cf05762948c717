/**
 * Generates real PDFs (pdf-lib, standard Helvetica) laid out the way a word processor would:
 * bold headings sized by level, wrapped paragraphs, tables as text aligned in columns, a page
 * number at the foot of each page. One array of elements per page.
 */
import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from "pdf-lib";

export type PdfElement =
  | { heading: string; level: 1 | 2 | 3 }
  | { paragraph: string }
  | { caption: string }
  /** First row is the header. */
  | { table: string[][] }
  | { bullets: string[] };

const PAGE = { width: 595, height: 842, margin: 50 };
const BODY_SIZE = 11;
const LEADING = 14;
const HEADING_SIZES = { 1: 16, 2: 14, 3: 12 } as const;
const COLUMN_WIDTH = 150;

export async function makePdf(pages: PdfElement[][], options: { pageNumbers?: boolean } = {}): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const fonts = { regular: await pdf.embedFont(StandardFonts.Helvetica), bold: await pdf.embedFont(StandardFonts.HelveticaBold) };
  pages.forEach((elements, pageIndex) => {
    const page = pdf.addPage([PAGE.width, PAGE.height]);
    let y = PAGE.height - PAGE.margin;
    const write = (text: string, x: number, size: number, font: PDFFont) => {
      if (y < PAGE.margin + 20) throw new Error(`page ${pageIndex + 1} overflows; move elements to the next page`);
      page.drawText(text, { x, y, size, font });
    };
    for (const element of elements) {
      if ("heading" in element) {
        y -= 8;
        write(element.heading, PAGE.margin, HEADING_SIZES[element.level], fonts.bold);
        y -= LEADING + 10;
      } else if ("paragraph" in element || "caption" in element) {
        const text = "paragraph" in element ? element.paragraph : element.caption;
        for (const line of wrap(text, fonts.regular, PAGE.width - 2 * PAGE.margin)) {
          write(line, PAGE.margin, BODY_SIZE, fonts.regular);
          y -= LEADING;
        }
        y -= 10;
      } else if ("table" in element) {
        for (const row of element.table) {
          row.forEach((cell, column) => {
            if (cell) page.drawText(cell, { x: PAGE.margin + column * COLUMN_WIDTH, y, size: BODY_SIZE, font: fonts.regular });
          });
          y -= LEADING;
        }
        y -= 10;
      } else {
        for (const bullet of element.bullets) {
          write(`• ${bullet}`, PAGE.margin, BODY_SIZE, fonts.regular);
          y -= LEADING;
        }
        y -= 10;
      }
    }
    if (options.pageNumbers !== false) drawPageNumber(page, pageIndex + 1, fonts.regular);
  });
  return pdf.save();
}

function drawPageNumber(page: PDFPage, number: number, font: PDFFont): void {
  page.drawText(String(number), { x: PAGE.width / 2, y: 30, size: 9, font });
}

function wrap(text: string, font: PDFFont, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    const candidate = line ? `${line} ${word}` : word;
    if (line && font.widthOfTextAtSize(candidate, BODY_SIZE) > width) {
      lines.push(line);
      line = word;
    } else {
      line = candidate;
    }
  }
  if (line) lines.push(line);
  return lines;
}
