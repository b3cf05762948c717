/**
 * What of a non-streamed answer the output check reads. Up to OUTPUT_CHECK_MAX_CHARS it reads
 * all of it. A longer answer would cost seconds of windowing, cue and verbatim scanning on the
 * event loop (a 20 MB answer held every other request for ~6 s) while the window budget embeds
 * only a few windows of it anyway; so it reads the beginning, the end and blocks spread evenly
 * between them, OUTPUT_CHECK_MAX_CHARS in all, and the budget picks its windows from those.
 */
export const OUTPUT_CHECK_MAX_CHARS = 64 * 1024;
const BLOCK_CHARS = 2 * 1024;

export function outputCheckText(text: string): string {
  if (text.length <= OUTPUT_CHECK_MAX_CHARS) return text;
  const blocks = Math.floor(OUTPUT_CHECK_MAX_CHARS / BLOCK_CHARS);
  const step = (text.length - BLOCK_CHARS) / (blocks - 1);
  const sample: string[] = [];
  for (let i = 0; i < blocks; i++) {
    const start = Math.round(i * step);
    sample.push(wholeWords(text, start, Math.min(text.length, start + BLOCK_CHARS)));
  }
  return sample.join("\n\n");
}

/** text[start, end) without the partial words at either cut. */
function wholeWords(text: string, start: number, end: number): string {
  let from = start;
  let to = end;
  if (from > 0 && !/\s/.test(text[from - 1]!)) while (from < to && !/\s/.test(text[from]!)) from++;
  if (to < text.length && !/\s/.test(text[to]!)) while (to > from && !/\s/.test(text[to - 1]!)) to--;
  return text.slice(from, to).trim();
}
