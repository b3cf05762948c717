/**
 * Plain text → blocks. Blank lines separate blocks; a lone numbered line ("2.1 Scope") is a
 * heading; a block whose every line starts with a bullet or number is a list; other blocks
 * are paragraphs with their hard wraps joined.
 */
import { isCaptionText } from "./caption-text.ts";
import { isNumberedHeadingLine, sectionDepth, splitSectionNumber } from "./section-numbers.ts";
import type { Block } from "./types.ts";
import { joinWrappedLines } from "./wrapped-lines.ts";

const LIST_ITEM = /^(?:[-*•◦▪–]|\d{1,3}[.)]|\(?[a-z]\))\s+/;

export function parsePlainText(text: string): Block[] {
  const blocks: Block[] = [];
  for (const part of text.split(/\n[ \t]*\n/)) {
    const lines = part.split("\n").map((line) => line.trim()).filter(Boolean);
    if (lines.length === 0) continue;
    if (lines.length === 1 && isNumberedHeadingLine(lines[0])) {
      const { sectionNumber } = splitSectionNumber(lines[0]);
      blocks.push({ kind: "heading", text: lines[0], page: null, level: sectionDepth(sectionNumber!), sectionNumber });
    } else if (lines.every((line) => LIST_ITEM.test(line))) {
      blocks.push({ kind: "list", text: lines.join("\n"), page: null });
    } else {
      const joined = joinWrappedLines(lines);
      blocks.push({ kind: isCaptionText(joined) ? "caption" : "paragraph", text: joined, page: null });
    }
  }
  return blocks;
}
