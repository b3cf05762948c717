/**
 * Generates real .docx files (the `docx` package) with Word's own styles: Heading 1-3,
 * Caption, bulleted paragraphs, and tables whose first row may be marked as a header row.
 */
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow } from "docx";

export type DocxElement =
  | { heading: string; level: 1 | 2 | 3 }
  | { paragraph: string }
  | { caption: string }
  /** First row is the header; `markHeader` sets Word's "repeat as header row" flag on it. */
  | { table: string[][]; markHeader?: boolean }
  | { bullets: string[] };

const HEADING_LEVELS = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 } as const;

export async function makeDocx(elements: DocxElement[]): Promise<Uint8Array> {
  const children = elements.flatMap((element): (Paragraph | Table)[] => {
    if ("heading" in element) return [new Paragraph({ text: element.heading, heading: HEADING_LEVELS[element.level] })];
    if ("paragraph" in element) return [new Paragraph(element.paragraph)];
    if ("caption" in element) return [new Paragraph({ text: element.caption, style: "Caption" })];
    if ("bullets" in element) return element.bullets.map((text) => new Paragraph({ text, bullet: { level: 0 } }));
    return [
      new Table({
        rows: element.table.map(
          (cells, i) =>
            new TableRow({
              // Only ever set it to true: mammoth reads any tblHeader element, even val="false", as a header row.
              ...(i === 0 && element.markHeader === true ? { tableHeader: true } : {}),
              children: cells.map((cell) => new TableCell({ children: [new Paragraph(cell)] })),
            }),
        ),
      }),
    ];
  });
  const buffer = await Packer.toBuffer(new Document({ sections: [{ children }] }));
  return new Uint8Array(buffer);
}
