/**
 * A PDF's outline (bookmarks) as its section structure. The author's tool wrote it, so when a
 * PDF has one it beats any guess from the layout: titles and nesting come from the outline,
 * and each heading is placed in the text by finding its title on the page the bookmark points
 * to (nearest to the bookmark's target height, so a running header or the table of contents
 * is not taken for it). A title not found as text there (set as an image or as maths) becomes
 * a heading line of its own at the bookmark's target. (Numbered headings deeper than the
 * outline goes are still taken from layout: pdf-blocks.ts.)
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
/** Bookmarks placed on one page, at most (real pages hold a few dozen): a bound on matching work. */
const MAX_ENTRIES_PER_PAGE = 100;
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

/**
 * A title compared loosely: case, accents, punctuation, spacing and a leading section number
 * ignored — also a bare one ("I siunitx-angle" in the outline is "Part I" + "siunitx-angle" on
 * the page).
 */
export function normalisedTitle(text: string): string {
  const title = normalise(splitSectionNumber(text).title) || normalise(text);
  return title.replace(/^(?:[ivxlc]{1,7}|[a-z]|\d{1,3}) (?=\S)/, "");
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
    const onPage = byPage.get(entry.pageIndex) ?? [];
    if (entry.pageIndex >= 0 && entry.pageIndex < pages.length && onPage.length < MAX_ENTRIES_PER_PAGE) byPage.set(entry.pageIndex, [...onPage, entry]);
  }
  return pages.map((lines, pageIndex) => {
    const entries = byPage.get(pageIndex);
    return entries ? placeOnPage(lines, entries) : lines;
  });
}

function placeOnPage(lines: PdfLine[], entries: OutlineEntry[]): PageLine[] {
  const page: PageLine[] = [...lines];
  // Where a bookmark without a height goes: after the heading placed before it.
  let cursor = 0;
  for (const entry of entries) {
    const mark: HeadingMark = { level: entry.level, sectionNumber: splitSectionNumber(entry.title).sectionNumber };
    const found = findTitle(page, entry, cursor);
    if (found?.exact) {
      const merged = page.slice(found.index, found.index + found.length);
      // A title can share its baseline with a margin note: only its own cells are the heading.
      const rest = found.cells === null ? [] : [{ ...merged[0], cells: merged[0].cells.slice(found.cells), text: merged[0].cells.slice(found.cells).map((cell) => cell.text).join(" ") }];
      const titleCells = found.cells === null ? null : merged[0].cells.slice(0, found.cells);
      const text = titleCells ? titleCells.map((cell) => cell.text).join(" ") : merged.map((line) => line.text).join(" ");
      const heading: PageLine = { ...merged[0], ...(titleCells ? { cells: titleCells } : {}), text, heading: { ...mark, sectionNumber: splitSectionNumber(text).sectionNumber ?? mark.sectionNumber } };
      page.splice(found.index, found.length, heading, ...rest);
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

/** `cells`: the title is the first `cells` cells of a single line (the rest is something else); null when whole lines. */
type TitleMatch = { index: number; length: number; exact: boolean; cells: number | null };

/**
 * Lines of the page whose text is the title (exact), or starts with it (a run-in heading: the
 * heading goes before that line). Among several, the one nearest the bookmark's height;
 * without a height, the first from the cursor on.
 */
function findTitle(lines: PageLine[], entry: OutlineEntry, cursor: number): TitleMatch | null {
  const title = normalisedTitle(entry.title);
  const candidates: TitleMatch[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].heading) continue;
    const { cells } = lines[i];
    for (let count = 1; count < cells.length; count++) {
      if (normalisedTitle(cells.slice(0, count).map((cell) => cell.text).join(" ")) === title) candidates.push({ index: i, length: 1, exact: true, cells: count });
    }
    let joined = "";
    for (let length = 1; length <= MAX_TITLE_LINES && i + length <= lines.length; length++) {
      if (lines[i + length - 1].heading) break;
      joined = `${joined} ${lines[i + length - 1].text}`;
      const text = normalisedTitle(joined);
      if (text === title) candidates.push({ index: i, length, exact: true, cells: null });
      else if (length === 1 && text.startsWith(`${title} `)) candidates.push({ index: i, length, exact: false, cells: null });
      if (text.length >= title.length) break;
    }
  }
  if (entry.top === null) return candidates.find((match) => match.index >= cursor) ?? null;
  const distance = (match: TitleMatch) => Math.abs(entry.top! - lines[match.index].y);
  return candidates.reduce<TitleMatch | null>((best, match) => (best === null || distance(match) < distance(best) ? match : best), null);
}

/** Before the first line at or below the bookmark's height; at the cursor without a height. */
function insertionIndex(lines: PageLine[], cursor: number, top: number | null): number {
  if (top === null) return cursor;
  const below = lines.findIndex((line) => line.y <= top);
  return below < 0 ? lines.length : below;
}
