/**
 * Headings written as styled paragraphs. Office suites exporting EPUB (LibreOffice's EPUB export
 * among them) write a heading as `<p class="para4"><span class="span3">Title</span></p>` with the
 * size in the stylesheet, never as <h1>–<h6>. For a chapter without heading elements, a short
 * paragraph whose text is all set in one size larger than the body text becomes a heading, its
 * level from the rank of its size among such sizes (largest first). The body size is the size
 * most of the chapter's paragraph text is set in; text with no size of its own counts as CSS's
 * default 12 pt.
 */
import { HTMLElement, NodeType, parse, type Node } from "node-html-parser";

/** CSS's default font size (16 px) in points. */
const DEFAULT_PT = 12;
/** A heading is a line, not a paragraph of prose. */
const MAX_HEADING_CHARS = 150;
const UNITS_TO_PT: Record<string, number> = { pt: 1, px: 0.75 };

/** Class name → font size in points, from `.name { … font-size: Npt|Npx … }` rules. */
export function classFontSizes(css: string): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const [, selectors, body] of css.matchAll(/([^{}]+)\{([^}]*)\}/g)) {
    const size = /font-size\s*:\s*([\d.]+)\s*(pt|px)\b/i.exec(body!);
    if (!size) continue;
    for (const [, name] of selectors!.matchAll(/\.([A-Za-z_][\w-]*)\s*(?:,|$)/g)) sizes.set(name!, Number(size[1]) * UNITS_TO_PT[size[2]!.toLowerCase()]!);
  }
  return sizes;
}

/** The chapter with its styled heading paragraphs turned into <h1>–<h6>; unchanged when it has heading elements or no sized classes. */
export function withStyledHeadings(html: string, sizes: Map<string, number>): string {
  if (sizes.size === 0 || /<h[1-6][\s>]/i.test(html)) return html;
  const page = parse(html, { comment: false });
  const paragraphs = page.querySelectorAll("p").map((element) => ({ element, runs: sizedRuns(element, sizes) }));
  const chars = new Map<number, number>();
  for (const { runs } of paragraphs) for (const run of runs) chars.set(run.size, (chars.get(run.size) ?? 0) + run.chars);
  const body = [...chars].sort((a, b) => b[1] - a[1])[0]?.[0] ?? DEFAULT_PT;
  const headings = paragraphs.flatMap(({ element, runs }) => {
    const sizesUsed = new Set(runs.map((run) => run.size));
    const length = runs.reduce((sum, run) => sum + run.chars, 0);
    const [size] = sizesUsed;
    return sizesUsed.size === 1 && size! > body && length > 0 && length <= MAX_HEADING_CHARS ? [{ element, size: size! }] : [];
  });
  if (headings.length === 0) return html;
  const ranks = [...new Set(headings.map((heading) => heading.size))].sort((a, b) => b - a);
  for (const { element, size } of headings) element.tagName = `h${Math.min(6, ranks.indexOf(size) + 1)}`;
  return page.toString();
}

/** The paragraph's non-blank text runs with the size each is set in (its nearest sized element, else the default). */
function sizedRuns(paragraph: HTMLElement, sizes: Map<string, number>): { size: number; chars: number }[] {
  const runs: { size: number; chars: number }[] = [];
  const walk = (node: Node, size: number) => {
    if (node.nodeType === NodeType.TEXT_NODE) {
      const chars = node.text.trim().length;
      if (chars > 0) runs.push({ size, chars });
      return;
    }
    if (!(node instanceof HTMLElement)) return;
    const own = node.classList.value.map((name) => sizes.get(name)).find((value) => value !== undefined);
    for (const child of node.childNodes) walk(child, own ?? size);
  };
  walk(paragraph, DEFAULT_PT);
  return runs;
}
