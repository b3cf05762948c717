/**
 * A PDF's outline (bookmarks) as its section structure. The author's tool wrote it, so when a
 * PDF has one it beats any guess from the layout: titles and nesting come from the outline,
 * and each heading is placed in the text by finding its title on the page the bookmark points
 * to (nearest to the bookmark's target height, so a running header or the table of contents
 * is not taken for it). A title not found as text there (set as an image or as maths) becomes
 * a heading line of its own at the bookmark's target.
 */
import type { getDocumentProxy } from "unpdf";
import type { PdfLine } from "./pdf-lines.ts";
import { splitSectionNumber } from "./section-numbers.ts";

export type OutlineEntry = {
  title: string;
  /** 1 for a top-level bookmark. */
  level: number;
  /** 0-based page the bookmark points to. */
  pageIndex: number;
  /** Height on that page it points to (PDF units from the bottom), when the destination gives one. */
  top: number | null;
};

export type HeadingMark = { level: number; sectionNumber: string | null };
/** A line of a page, marked when the outline makes it a heading. */
export type PageLine = PdfLine & { heading?: HeadingMark };

/** Outlines larger than this are read up to it: a bound on work for a hostile file. */
const MAX_ENTRIES = 5000;
/** A title may wrap over this many lines. */
const MAX_TITLE_LINES = 3;

type PDFDocumentProxy = Awaited<ReturnType<typeof getDocumentProxy>>;
type OutlineNode = { title: string; dest: string | unknown[] | null; items: OutlineNode[] };

/** The outline's entries in document order; entries whose target cannot be resolved are left out. */
export async function readOutline(pdf: PDFDocumentProxy): Promise<OutlineEntry[]> {
  const nodes = ((await pdf.getOutline()) ?? []) as OutlineNode[];
  const entries: OutlineEntry[] = [];
  const walk = async (items: OutlineNode[], level: number) => {
    for (const node of items) {
      if (entries.length >= MAX_ENTRIES) return;
      const target = await resolveTarget(pdf, node.dest);
      const title = node.title.replace(/\s+/g, " ").trim();
      if (target && normalisedTitle(title)) entries.push({ title, level, ...target });
      await walk(node.items ?? [], level + 1);
    }
  };
  await walk(nodes, 1);
  return entries;
}

async function resolveTarget(pdf: PDFDocumentProxy, dest: OutlineNode["dest"]): Promise<{ pageIndex: number; top: number | null } | null> {
  try {
    const explicit = typeof dest === "string" ? await pdf.getDestination(dest) : dest;
    if (!Array.isArray(explicit) || explicit.length === 0) return null;
    const [page, kind] = explicit as [unknown, { name?: string } | undefined];
    const pageIndex = typeof page === "number" ? page : await pdf.getPageIndex(page as Parameters<PDFDocumentProxy["getPageIndex"]>[0]);
    // [page, /XYZ, left, top, zoom] and [page, /FitH|FitBH, top] carry a height.
    const top = kind?.name === "XYZ" ? explicit[3] : kind?.name === "FitH" || kind?.name === "FitBH" ? explicit[2] : null;
    return { pageIndex, top: typeof top === "number" && Number.isFinite(top) ? top : null };
  } catch {
    return null;
  }
}

/** A title compared loosely: case, accents, punctuation, spacing and a leading section number ignored. */
export function normalisedTitle(text: string): string {
  return normalise(splitSectionNumber(text).title) || normalise(text);
}

function normalise(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The pages' lines with the outline's headings marked (and inserted where not found as text). */
export function placeOutlineHeadings(pages: PdfLine[][], outline: OutlineEntry[]): PageLine[][] {
  const byPage = new Map<number, OutlineEntry[]>();
  for (const entry of outline) {
    if (entry.pageIndex >= 0 && entry.pageIndex < pages.length) byPage.set(entry.pageIndex, [...(byPage.get(entry.pageIndex) ?? []), entry]);
  }
  return pages.map((lines, pageIndex) => {
    const entries = byPage.get(pageIndex);
    return entries ? placeOnPage(lines, entries) : lines;
  });
}

function placeOnPage(lines: PdfLine[], entries: OutlineEntry[]): PageLine[] {
  const page: PageLine[] = [...lines];
  // Place top-down: entries without a height keep their outline order after those with one.
  const ordered = [...entries].sort((a, b) => (b.top ?? -Infinity) - (a.top ?? -Infinity));
  let cursor = 0;
  for (const entry of ordered) {
    const mark: HeadingMark = { level: entry.level, sectionNumber: splitSectionNumber(entry.title).sectionNumber };
    const found = findTitle(page, cursor, entry);
    if (found && found.exact) {
      const merged = page.slice(found.index, found.index + found.length);
      const text = merged.map((line) => line.text).join(" ");
      const line: PageLine = { ...merged[0], text, heading: { ...mark, sectionNumber: splitSectionNumber(text).sectionNumber ?? mark.sectionNumber } };
      page.splice(found.index, found.length, line);
      cursor = found.index + 1;
    } else {
      const at = found ? found.index : insertionIndex(page, cursor, entry.top);
      const y = page[at]?.y ?? entry.top ?? 0;
      page.splice(at, 0, { text: entry.title, cells: [{ text: entry.title, x: 0, right: 0 }], y, fontSize: page[at]?.fontSize ?? 0, monospace: false, heading: mark });
      cursor = at + 1;
    }
  }
  return page;
}

type TitleMatch = { index: number; length: number; exact: boolean };

/**
 * Lines from `from` on whose text is the title (exact), or starts with it (a run-in heading:
 * the heading goes before that line). Among several, the one nearest the bookmark's height.
 */
function findTitle(lines: PageLine[], from: number, entry: OutlineEntry): TitleMatch | null {
  const title = normalisedTitle(entry.title);
  const candidates: TitleMatch[] = [];
  for (let i = from; i < lines.length; i++) {
    if (lines[i].heading) continue;
    let joined = "";
    for (let length = 1; length <= MAX_TITLE_LINES && i + length <= lines.length; length++) {
      joined = `${joined} ${lines[i + length - 1].text}`;
      const text = normalisedTitle(joined);
      if (text === title) candidates.push({ index: i, length, exact: true });
      else if (length === 1 && text.startsWith(`${title} `)) candidates.push({ index: i, length, exact: false });
      if (text.length >= title.length) break;
    }
  }
  if (entry.top === null) return candidates[0] ?? null;
  const distance = (match: TitleMatch) => Math.abs(entry.top! - lines[match.index].y);
  return candidates.reduce<TitleMatch | null>((best, match) => (best === null || distance(match) < distance(best) ? match : best), null);
}

/** Before the first line (from `from` on) at or below the bookmark's height; the cursor without a height. */
function insertionIndex(lines: PageLine[], from: number, top: number | null): number {
  if (top === null) return from;
  for (let i = from; i < lines.length; i++) if (lines[i].y <= top) return i;
  return lines.length;
}
