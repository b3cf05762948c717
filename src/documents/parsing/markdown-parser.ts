/**
 * Markdown → blocks, line by line: ATX and setext headings, fenced code, pipe tables, lists,
 * paragraphs (soft-wrapped lines joined). Inline links and images are reduced to their text.
 */
import { isCaptionText } from "./caption-text.ts";
import { splitSectionNumber } from "./section-numbers.ts";
import { tableBlock } from "./table-block.ts";
import type { Block } from "./types.ts";

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const ATX_HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)\s*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,9}[.)])\s+/;
const BLOCKQUOTE = /^\s*>\s?/;

export function parseMarkdown(markdown: string): Block[] {
  const lines = withoutFrontMatter(markdown.split("\n"));
  const blocks: Block[] = [];
  let paragraph: string[] = [];

  const flushParagraph = () => {
    const text = inlineText(paragraph.map((line) => line.trim()).join(" "));
    paragraph = [];
    if (text) blocks.push({ kind: isCaptionText(text) ? "caption" : "paragraph", text, page: null });
  };

  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    const heading = ATX_HEADING.exec(line);
    if (line.trim() === "") {
      flushParagraph();
      i++;
    } else if (fence) {
      flushParagraph();
      const end = closingFenceIndex(lines, i + 1, fence[1]);
      const text = lines.slice(i + 1, end).join("\n").replace(/^\n+|\s+$/g, "");
      if (text) blocks.push({ kind: "code", text, page: null, ...(fence[2] ? { language: fence[2] } : {}) });
      i = end + 1;
    } else if (heading) {
      flushParagraph();
      pushHeading(blocks, heading[2], heading[1].length);
      i++;
    } else if (paragraph.length > 0 && SETEXT_UNDERLINE.test(line)) {
      const text = paragraph.map((part) => part.trim()).join(" ");
      paragraph = [];
      pushHeading(blocks, text, line.trim().startsWith("=") ? 1 : 2);
      i++;
    } else if (THEMATIC_BREAK.test(line)) {
      flushParagraph();
      i++;
    } else if (line.includes("|") && TABLE_DELIMITER.test(lines[i + 1] ?? "") && lines[i + 1].includes("-")) {
      flushParagraph();
      let end = i + 2;
      while (end < lines.length && lines[end].includes("|") && lines[end].trim() !== "") end++;
      const body = lines.slice(i + 2, end).map(splitPipeRow);
      blocks.push(tableBlock(splitPipeRow(line), body, null));
      i = end;
    } else if (LIST_ITEM.test(line)) {
      flushParagraph();
      const end = listEndIndex(lines, i);
      const text = inlineText(lines.slice(i, end).filter((item) => item.trim() !== "").map((item) => item.trimEnd()).join("\n"));
      blocks.push({ kind: "list", text, page: null });
      i = end;
    } else {
      paragraph.push(line.replace(BLOCKQUOTE, ""));
      i++;
    }
  }
  flushParagraph();
  return blocks;
}

function withoutFrontMatter(lines: string[]): string[] {
  if (lines[0]?.trim() !== "---") return lines;
  const end = lines.indexOf("---", 1);
  return end < 0 ? lines : lines.slice(end + 1);
}

function pushHeading(blocks: Block[], rawText: string, level: number): void {
  const text = inlineText(rawText);
  if (text) blocks.push({ kind: "heading", text, page: null, level, sectionNumber: splitSectionNumber(text).sectionNumber });
}

function closingFenceIndex(lines: string[], from: number, fence: string): number {
  for (let i = from; i < lines.length; i++) {
    const trimmed = lines[i].trim();
    if (trimmed.startsWith(fence[0].repeat(fence.length)) && trimmed.replaceAll(fence[0], "") === "") return i;
  }
  return lines.length;
}

/** A list runs over its items, their indented continuations, and blank lines followed by either. */
function listEndIndex(lines: string[], start: number): number {
  let i = start + 1;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") {
      const next = lines[i + 1] ?? "";
      if (!LIST_ITEM.test(next) && !/^\s+\S/.test(next)) return i;
    } else if (!LIST_ITEM.test(line) && !/^\s/.test(line) && (FENCE.test(line) || ATX_HEADING.test(line))) {
      return i;
    }
    i++;
  }
  return i;
}

function splitPipeRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "")
    .split(/(?<!\\)\|/)
    .map((cell) => cell.replaceAll("\\|", "|"));
}

/** `![alt](src)` → alt, `[text](href)` → text; other inline markup is kept as written. */
function inlineText(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .trim();
}
