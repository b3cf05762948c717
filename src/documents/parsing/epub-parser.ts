/**
 * EPUB → blocks: the XHTML documents of the spine, in reading order, each through the HTML parser.
 * A chapter's own headings are its sections: its heading elements, else its paragraphs styled as
 * headings (larger type, as office suites export them: styled-headings.ts); a chapter without any
 * gets its table-of-contents label (EPUB 3 nav or EPUB 2 NCX), else its <title>, as a level-1 heading.
 */
import { CorruptFileError } from "./errors.ts";
import { parseHtml } from "./html-parser.ts";
import { classFontSizes, withStyledHeadings } from "./styled-headings.ts";
import type { DecompressionLimits } from "./limits.ts";
import type { Block } from "./types.ts";
import { childNamed, descendantNamed, descendantsNamed, textOf, type XmlElement } from "./xml-tree.ts";
import { resolvePart, ZipParts } from "./zip-parts.ts";

const CONTAINER = "META-INF/container.xml";
const XHTML_TYPES = new Set(["application/xhtml+xml", "text/html"]);

type ManifestItem = { href: string; mediaType: string; properties: string };

export function parseEpub(bytes: Uint8Array, limits: DecompressionLimits): Block[] {
  const parts = new ZipParts(bytes, limits, ".epub");
  const opfPath = descendantNamed(parts.xml(CONTAINER), "rootfile")?.attrs["full-path"];
  if (!opfPath) throw new CorruptFileError("The .epub cannot be read: META-INF/container.xml names no package document");
  const opf = parts.xml(opfPath);
  const dir = opfPath.slice(0, opfPath.lastIndexOf("/") + 1);
  const manifest = new Map<string, ManifestItem>();
  for (const item of descendantsNamed(opf, "item")) {
    manifest.set(item.attrs.id, { href: resolvePart(dir, item.attrs.href ?? ""), mediaType: item.attrs["media-type"] ?? "", properties: item.attrs.properties ?? "" });
  }
  const spine = descendantNamed(opf, "spine");
  const titles = tocTitles(parts, manifest, spine);
  const fontSizes = classFontSizes([...manifest.values()].filter((item) => item.mediaType === "text/css" && parts.has(item.href)).map((item) => parts.text(item.href)).join("\n"));
  const blocks: Block[] = [];
  for (const itemref of spine ? descendantsNamed(spine, "itemref") : []) {
    const item = manifest.get(itemref.attrs.idref);
    if (!item || !XHTML_TYPES.has(item.mediaType) || !parts.has(item.href)) continue;
    const html = parts.text(item.href);
    const chapter = parseHtml(withStyledHeadings(html, fontSizes));
    const title = titles.get(item.href) ?? /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim();
    if (!chapter.some((block) => block.kind === "heading") && title && chapter.length > 0) {
      blocks.push({ kind: "heading", text: title, page: null, level: 1, sectionNumber: null });
    }
    blocks.push(...chapter);
  }
  return blocks;
}

/** Part name → first table-of-contents label pointing into it. */
function tocTitles(parts: ZipParts, manifest: Map<string, ManifestItem>, spine: XmlElement | undefined): Map<string, string> {
  const titles = new Map<string, string>();
  const add = (base: string, href: string | undefined, label: string) => {
    const target = resolvePart(base.slice(0, base.lastIndexOf("/") + 1), href ?? "");
    const clean = label.replace(/\s+/g, " ").trim();
    if (clean && !titles.has(target)) titles.set(target, clean);
  };
  const nav = [...manifest.values()].find((item) => item.properties.split(/\s+/).includes("nav"));
  if (nav && parts.has(nav.href)) {
    for (const link of descendantsNamed(parts.xml(nav.href), "a")) add(nav.href, link.attrs.href, textOf(link));
  }
  const ncx = spine?.attrs.toc ? manifest.get(spine.attrs.toc) : undefined;
  if (ncx && parts.has(ncx.href)) {
    for (const point of descendantsNamed(parts.xml(ncx.href), "navPoint")) {
      const label = childNamed(point, "navLabel");
      add(ncx.href, childNamed(point, "content")?.attrs.src, label ? textOf(label, "text") : "");
    }
  }
  return titles;
}
