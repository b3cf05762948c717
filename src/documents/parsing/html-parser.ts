/**
 * HTML → blocks. Also reads what mammoth makes of a DOCX, so DOCX and HTML share one parser.
 * Block elements become blocks; inline content between them is gathered into paragraphs.
 *
 * Pages as sites and documentation tools write them carry navigation and boilerplate around
 * the content: when the page marks its content (<main>, role="main"), only that is read;
 * navigation, banners, footers, sidebars (by element, ARIA role, or a class/id such as
 * "sidebar" or "nav-panel"), tables made only of links (a jump-to bar, an index) and
 * permalink marks ("#", "¶" links after headings and definitions) are dropped.
 */
import { HTMLElement, NodeType, parse, type Node } from "node-html-parser";
import { isCaptionText } from "./caption-text.ts";
import { splitSectionNumber } from "./section-numbers.ts";
import { tableBlock } from "./table-block.ts";
import type { Block } from "./types.ts";

export type HtmlParseOptions = {
  /** Use a table's first row as its header when no row is marked up as one (Word rarely marks them). */
  firstRowIsHeader?: boolean;
};

const SKIPPED = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "SVG", "CANVAS", "IFRAME", "NAV", "BUTTON", "SELECT"]);
const CONTAINERS = new Set([
  "HTML", "BODY", "DIV", "SECTION", "ARTICLE", "MAIN", "HEADER", "FOOTER", "ASIDE", "FIGURE",
  "DETAILS", "FORM", "FIELDSET", "BLOCKQUOTE", "DL", "HGROUP", "CENTER",
]);
const PARAGRAPHS = new Set(["P", "DT", "DD", "SUMMARY", "ADDRESS", "LI"]);
const HEADING = /^H([1-6])$/;
const BOILERPLATE_TAGS = new Set(["FOOTER", "ASIDE"]);
const BOILERPLATE_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search"]);
// Class or id tokens of navigation and page furniture in common site and documentation generators.
const BOILERPLATE_NAME =
  /^(?:nav|navbar|navigation|nav-panel|menu|sidebar|sphinxsidebar|related|breadcrumbs?|footer|skip-link|skip-to-content|cookie-banner|toc|gtoc|header)$/i;
const PERMALINK = /^\s*[#¶§🔗]+\s*$/u;

export function parseHtml(html: string, options: HtmlParseOptions = {}): Block[] {
  // The parser keeps declarations (<!doctype>, <?xml?>) as text; they are not content.
  const page = parse(html.replace(/<![a-z][^>]*>|<\?xml[^>]*\?>/gi, ""), { comment: false, blockTextElements: { script: true, style: true, noscript: true } });
  const main = page.querySelectorAll("main, [role=main]");
  const roots = main.length > 0 ? main.filter((element) => !main.some((other) => other !== element && isInside(element, other))) : [page];
  const blocks: Block[] = [];
  let inline = "";

  const flushInline = () => {
    addParagraph(blocks, inline, false);
    inline = "";
  };

  const visit = (element: HTMLElement) => {
    for (const child of element.childNodes) {
      if (!isElement(child)) {
        inline += child.text;
        continue;
      }
      const tag = child.tagName;
      if (SKIPPED.has(tag) || isBoilerplate(child)) continue;
      const heading = HEADING.exec(tag);
      if (heading) {
        flushInline();
        addHeading(blocks, contentText(child), Number(heading[1]));
      } else if (CONTAINERS.has(tag)) {
        flushInline();
        visit(child);
      } else if (PARAGRAPHS.has(tag)) {
        flushInline();
        addParagraph(blocks, contentText(child), tag === "P" && child.classList.contains("caption"));
      } else if (tag === "FIGCAPTION") {
        flushInline();
        addParagraph(blocks, contentText(child), true);
      } else if (tag === "TABLE") {
        flushInline();
        addTable(blocks, child, options);
      } else if (tag === "UL" || tag === "OL") {
        flushInline();
        const text = listLines(child, 0).join("\n");
        if (text.trim()) blocks.push({ kind: "list", text, page: null });
      } else if (tag === "PRE") {
        flushInline();
        addCode(blocks, child);
      } else if (tag === "BR" || tag === "HR") {
        flushInline();
      } else {
        inline += contentText(child);
      }
    }
  };

  for (const root of roots) {
    visit(root);
    flushInline();
  }
  return blocks;
}

function isInside(element: HTMLElement, ancestor: HTMLElement): boolean {
  for (let node = element.parentNode; node; node = node.parentNode) if (node === ancestor) return true;
  return false;
}

/** Navigation and page furniture; a <header> or class "header" holding a heading is the content's own. */
function isBoilerplate(element: HTMLElement): boolean {
  if (BOILERPLATE_TAGS.has(element.tagName)) return true;
  if (BOILERPLATE_ROLES.has(element.getAttribute("role") ?? "")) return true;
  const names = [...(element.getAttribute("class") ?? "").split(/\s+/), element.getAttribute("id") ?? ""].filter(Boolean);
  const named = names.some((name) => BOILERPLATE_NAME.test(name));
  if (element.tagName === "HEADER" || (named && names.some((name) => /^header$/i.test(name)))) return element.querySelector("h1, h2, h3, h4, h5, h6") === null;
  return named;
}

/** Text of an element without what the parser skips (a "copy" button in a code block) and permalink marks ("#", "¶"). */
function contentText(element: HTMLElement): string {
  return element.childNodes.map((node) => (!isElement(node) ? node.text : isSkippedInline(node) ? "" : contentText(node))).join("");
}

function isSkippedInline(element: HTMLElement): boolean {
  return SKIPPED.has(element.tagName) || (element.tagName === "A" && PERMALINK.test(element.text));
}

function isElement(node: Node): node is HTMLElement {
  return node.nodeType === NodeType.ELEMENT_NODE;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function addHeading(blocks: Block[], rawText: string, level: number): void {
  const text = collapse(rawText);
  if (!text) return;
  blocks.push({ kind: "heading", text, page: null, level, sectionNumber: splitSectionNumber(text).sectionNumber });
}

function addParagraph(blocks: Block[], rawText: string, markedAsCaption: boolean): void {
  const text = collapse(rawText);
  if (!text) return;
  blocks.push({ kind: markedAsCaption || isCaptionText(text) ? "caption" : "paragraph", text, page: null });
}

function addTable(blocks: Block[], table: HTMLElement, options: HtmlParseOptions): void {
  const caption = table.childNodes.find((node) => isElement(node) && node.tagName === "CAPTION");
  if (caption) addParagraph(blocks, contentText(caption as HTMLElement), true);
  const rows = tableRows(table);
  if (rows.length === 0 || isLinkTable(table)) return;
  const headerAt = rows.findIndex((row) => row.isHeader);
  const useFirstRow = headerAt === 0 || (headerAt < 0 && options.firstRowIsHeader === true && rows.length > 1);
  const headers = useFirstRow ? rows[0].cells : [];
  const body = (useFirstRow ? rows.slice(1) : rows).map((row) => row.cells);
  blocks.push(tableBlock(headers, body, null));
}

/** (Nearly) every cell is a link or a lone letter (an index, a jump-to bar): navigation, not data. */
function isLinkTable(table: HTMLElement): boolean {
  // Label cells ("Jump to:") say nothing either way.
  const cells = table.querySelectorAll("td, th").filter((cell) => collapse(cell.text) !== "" && !/^[^:]{0,20}:$/.test(collapse(cell.text)));
  if (cells.length === 0) return false;
  const linkish = cells.filter((cell) => {
    const linked = collapse(cell.querySelectorAll("a").map((a) => a.text).join(" "));
    return (linked !== "" && linked.length >= collapse(cell.text).replace(/:$/, "").length * 0.8) || /^\p{Lu}$/u.test(collapse(cell.text));
  });
  // Header cells ("Index Entry", "Section") may be plain text.
  return linkish.length >= cells.length * 0.8;
}

type HtmlRow = { cells: string[]; isHeader: boolean };

/** Rows of this table only (not of tables nested in its cells), header rows flagged. */
function tableRows(table: HTMLElement): HtmlRow[] {
  const rows: HtmlRow[] = [];
  const readRow = (tr: HTMLElement, inHead: boolean) => {
    const cells = tr.childNodes.filter(isElement).filter((cell) => cell.tagName === "TD" || cell.tagName === "TH");
    if (cells.length === 0) return;
    // structuredText, unlike text, keeps a break between paragraphs inside one cell.
    rows.push({ cells: cells.map((cell) => cell.structuredText), isHeader: inHead || cells.every((cell) => cell.tagName === "TH") });
  };
  for (const child of table.childNodes.filter(isElement)) {
    if (child.tagName === "TR") readRow(child, false);
    if (["THEAD", "TBODY", "TFOOT"].includes(child.tagName)) {
      for (const tr of child.childNodes.filter(isElement)) if (tr.tagName === "TR") readRow(tr, child.tagName === "THEAD");
    }
  }
  return rows;
}

/** One line per item, "-" or "1." markers, nested lists indented by two spaces. */
function listLines(list: HTMLElement, depth: number): string[] {
  const lines: string[] = [];
  const items = list.childNodes.filter(isElement).filter((child) => child.tagName === "LI");
  items.forEach((item, i) => {
    const nested = item.childNodes.filter(isElement).filter((child) => child.tagName === "UL" || child.tagName === "OL");
    const own = collapse(item.childNodes.filter((child) => !nested.includes(child as HTMLElement)).map((child) => (isElement(child) ? contentText(child) : child.text)).join(""));
    const marker = list.tagName === "OL" ? `${i + 1}.` : "-";
    if (own) lines.push(`${"  ".repeat(depth)}${marker} ${own}`);
    for (const sublist of nested) lines.push(...listLines(sublist, depth + 1));
  });
  return lines;
}

function addCode(blocks: Block[], pre: HTMLElement): void {
  const text = contentText(pre).replace(/^\n+|\s+$/g, "");
  if (!text) return;
  const classes = [pre.getAttribute("class"), pre.querySelector("code")?.getAttribute("class")].join(" ");
  const language = /(?:language|lang)-([\w+#-]+)/.exec(classes)?.[1];
  blocks.push({ kind: "code", text, page: null, ...(language ? { language } : {}) });
}
