/**
 * Source code → one code block per top-level unit. A blank line ends a unit only when the next
 * non-blank line starts at column 0 and does not close a bracket, so blank lines inside an
 * indented function body keep the function whole.
 */
import type { Block } from "./types.ts";

export function parseCode(source: string, language: string): Block[] {
  const lines = source.split("\n");
  const blocks: Block[] = [];
  let start = 0;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== "") continue;
    let next = i + 1;
    while (next < lines.length && lines[next].trim() === "") next++;
    if (next === lines.length || startsTopLevelUnit(lines[next])) {
      pushCode(blocks, lines.slice(start, i), language);
      start = next;
    }
    i = next - 1;
  }
  pushCode(blocks, lines.slice(start), language);
  return blocks;
}

function startsTopLevelUnit(line: string): boolean {
  return !/^\s/.test(line) && !/^[)\]}]/.test(line);
}

function pushCode(blocks: Block[], lines: string[], language: string): void {
  const text = lines.join("\n").replace(/^\n+|\s+$/g, "");
  if (text) blocks.push({ kind: "code", text, page: null, language });
}
