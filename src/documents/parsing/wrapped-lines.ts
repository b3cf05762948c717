/** Re-joining text that a layout wrapped onto several lines (PDF lines, hard-wrapped plain text). */

/** Join with spaces; a word hyphenated across a line break ("docu-" + "ment") is made whole again. */
export function joinWrappedLines(lines: string[]): string {
  let text = "";
  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    if (/\p{L}-$/u.test(text) && /^\p{Ll}/u.test(line)) text = text.slice(0, -1) + line;
    else text = text ? `${text} ${line}` : line;
  }
  return text;
}
