/**
 * Generates real PDFs (pdf-lib, standard Helvetica) laid out the way a word processor would:
 * bold headings sized by level, wrapped paragraphs, tables as text aligned in columns, a page
 * number at the foot of each page. One array of elements per page. With `outline`, every
 * heading also gets a bookmark (as LaTeX's hyperref writes them: /XYZ destination at the
 * heading's top), and `bookmark` elements add a bookmark without any text.
 */
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFNull, PDFNumber, StandardFonts, type PDFFont, type PDFPage, type PDFRef } from "pdf-lib";

export type PdfElement =
  | { heading: string; level: 1 | 2 | 3 }
  | { paragraph: string }
  | { caption: string }
  /** First row is the header. */
  | { table: string[][] }
  | { bullets: string[] }
  /** A bookmark pointing here, with no text on the page (a title set as an image). */
  | { bookmark: string; level: 1 | 2 | 3 };

type Bookmark = { title: string; level: number; page: PDFRef; top: number };

const PAGE = { width: 595, height: 842, margin: 50 };
const BODY_SIZE = 11;
const LEADING = 14;
const HEADING_SIZES = { 1: 16, 2: 14, 3: 12 } as const;
const COLUMN_WIDTH = 150;

/** `outline`: bookmark every heading (true) or only headings up to a level. */
export async function makePdf(pages: PdfElement[][], options: { pageNumbers?: boolean; outline?: boolean | { maxLevel: number } } = {}): Promise<Uint8Array> {
  const bookmarked = (level: number) => options.outline === true || (typeof options.outline === "object" && level <= options.outline.maxLevel);
  const pdf = await PDFDocument.create();
  const bookmarks: Bookmark[] = [];
  const fonts = { regular: await pdf.embedFont(StandardFonts.Helvetica), bold: await pdf.embedFont(StandardFonts.HelveticaBold) };
  pages.forEach((elements, pageIndex) => {
    const page = pdf.addPage([PAGE.width, PAGE.height]);
    let y = PAGE.height - PAGE.margin;
    const write = (text: string, x: number, size: number, font: PDFFont) => {
      if (y < PAGE.margin + 20) throw new Error(`page ${pageIndex + 1} overflows; move elements to the next page`);
      page.drawText(text, { x, y, size, font });
    };
    for (const element of elements) {
      if ("bookmark" in element) {
        if (bookmarked(element.level)) bookmarks.push({ title: element.bookmark, level: element.level, page: page.ref, top: y });
      } else if ("heading" in element) {
        y -= 8;
        if (bookmarked(element.level)) bookmarks.push({ title: element.heading, level: element.level, page: page.ref, top: y + HEADING_SIZES[element.level] });
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
  if (bookmarks.length > 0) writeOutline(pdf, bookmarks);
  return pdf.save();
}

/** The document outline: nested by level, each item with an /XYZ destination. */
function writeOutline(pdf: PDFDocument, bookmarks: Bookmark[]): void {
  const { context } = pdf;
  const root = context.obj({ Type: "Outlines" });
  const rootRef = context.register(root);
  type Node = { ref: PDFRef; children: Node[]; level: number };
  const top: Node = { ref: rootRef, children: [], level: 0 };
  const stack: Node[] = [top];
  for (const bookmark of bookmarks) {
    while (stack[stack.length - 1].level >= bookmark.level) stack.pop();
    const parent = stack[stack.length - 1];
    const dict = context.obj({
      Title: PDFHexString.fromText(bookmark.title),
      Parent: parent.ref,
      Dest: [bookmark.page, PDFName.of("XYZ"), PDFNumber.of(PAGE.margin), PDFNumber.of(bookmark.top), PDFNull],
    });
    const node: Node = { ref: context.register(dict), children: [], level: bookmark.level };
    parent.children.push(node);
    stack.push(node);
  }
  const link = (node: Node) => {
    const dict = context.lookup(node.ref) as PDFDict;
    const { children } = node;
    if (children.length === 0) return;
    dict.set(PDFName.of("First"), children[0].ref);
    dict.set(PDFName.of("Last"), children[children.length - 1].ref);
    dict.set(PDFName.of("Count"), PDFNumber.of(children.length));
    children.forEach((child, i) => {
      const childDict = context.lookup(child.ref) as PDFDict;
      if (i > 0) childDict.set(PDFName.of("Prev"), children[i - 1].ref);
      if (i < children.length - 1) childDict.set(PDFName.of("Next"), children[i + 1].ref);
      link(child);
    });
  };
  link(top);
  pdf.catalog.set(PDFName.of("Outlines"), rootRef);
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
