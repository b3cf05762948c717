/**
 * PPTX → blocks: slides in presentation order, each one page. A slide's title placeholder is its
 * section heading ("Slide N" when it has none); its other text shapes (groups included) become
 * paragraphs and its tables tables, in the order the slide draws them. Slide numbers, dates and
 * footers are furniture and are left out. Speaker notes follow as their own section under the
 * slide ("Speaker notes"), their blocks marked `notes` so their chunks say so.
 */
import type { DecompressionLimits } from "./limits.ts";
import { tableBlock } from "./table-block.ts";
import type { Block } from "./types.ts";
import { childNamed, childrenNamed, descendantNamed, descendantsNamed, textOf, type XmlElement } from "./xml-tree.ts";
import { ZipParts } from "./zip-parts.ts";

const PRESENTATION = "ppt/presentation.xml";
const TITLE_PLACEHOLDERS = new Set(["title", "ctrTitle"]);
const FURNITURE_PLACEHOLDERS = new Set(["sldNum", "dt", "ftr", "hdr", "sldImg"]);
export const NOTES_HEADING = "Speaker notes";

export function parsePptx(bytes: Uint8Array, limits: DecompressionLimits): { blocks: Block[]; pageCount: number } {
  const parts = new ZipParts(bytes, limits, ".pptx");
  const rels = parts.relationships(PRESENTATION);
  const slideParts = descendantsNamed(parts.xml(PRESENTATION), "p:sldId").flatMap((id) => {
    const target = rels.get(id.attrs["r:id"])?.target;
    return target && parts.has(target) ? [target] : [];
  });
  const blocks: Block[] = [];
  slideParts.forEach((part, i) => blocks.push(...slideBlocks(parts, part, i + 1)));
  return { blocks, pageCount: slideParts.length };
}

function slideBlocks(parts: ZipParts, part: string, page: number): Block[] {
  const tree = descendantNamed(parts.xml(part), "p:spTree");
  let title = "";
  const content: Block[] = [];
  const visit = (group: XmlElement) => {
    for (const shape of group.children) {
      if (shape.name === "p:grpSp") visit(shape);
      else if (shape.name === "p:graphicFrame") {
        const table = descendantNamed(shape, "a:tbl");
        if (table) content.push(slideTable(table, page));
      } else if (shape.name === "p:sp") {
        const placeholder = placeholderType(shape);
        if (placeholder !== null && FURNITURE_PLACEHOLDERS.has(placeholder)) continue;
        const text = shapeText(shape);
        if (text === "") continue;
        if (placeholder !== null && TITLE_PLACEHOLDERS.has(placeholder) && title === "") title = text.replace(/\s+/g, " ");
        else content.push({ kind: "paragraph", text, page });
      }
    }
  };
  if (tree) visit(tree);
  const notes = notesText(parts, part);
  return [
    { kind: "heading", text: title || `Slide ${page}`, page, level: 1, sectionNumber: null },
    ...content,
    ...(notes === "" ? [] : [{ kind: "heading", text: NOTES_HEADING, page, level: 2, sectionNumber: null, notes: true } as Block, { kind: "paragraph", text: notes, page, notes: true } as Block]),
  ];
}

/** The placeholder type of a shape ("body" when it is a placeholder without one), or null for a free text box. */
function placeholderType(shape: XmlElement): string | null {
  const ph = descendantNamed(childNamed(shape, "p:nvSpPr") ?? shape, "p:ph");
  return ph ? (ph.attrs.type ?? "body") : null;
}

/** The shape's paragraphs, one per line. */
function shapeText(shape: XmlElement): string {
  const body = childNamed(shape, "p:txBody");
  if (!body) return "";
  return childrenNamed(body, "a:p")
    .map((p) => textOf(p, "a:t").trim())
    .filter((line) => line !== "")
    .join("\n");
}

/** First row as header; a cell merged into its left or upper neighbour repeats that one's text. */
function slideTable(table: XmlElement, page: number): Block {
  const rows: string[][] = [];
  for (const [r, tr] of childrenNamed(table, "a:tr").entries()) {
    const row: string[] = [];
    for (const [c, tc] of childrenNamed(tr, "a:tc").entries()) {
      if (tc.attrs.hMerge === "1") row.push(row[c - 1] ?? "");
      else if (tc.attrs.vMerge === "1") row.push(rows[r - 1]?.[c] ?? "");
      else row.push(childrenNamed(childNamed(tc, "a:txBody") ?? tc, "a:p").map((p) => textOf(p, "a:t")).join(" "));
    }
    rows.push(row);
  }
  return tableBlock(rows[0] ?? [], rows.slice(1), page);
}

function notesText(parts: ZipParts, slidePart: string): string {
  const notes = [...parts.relationships(slidePart).values()].find((rel) => rel.type.endsWith("/notesSlide"));
  if (!notes || !parts.has(notes.target)) return "";
  const tree = descendantNamed(parts.xml(notes.target), "p:spTree");
  if (!tree) return "";
  return descendantsNamed(tree, "p:sp")
    .filter((shape) => placeholderType(shape) === "body")
    .map(shapeText)
    .filter((text) => text !== "")
    .join("\n");
}
