/**
 * What of a very long text the firewall reads when a window budget applies: a non-streamed
 * answer (the output check) and each message of a request (planWindows). Up to LONG_TEXT_MAX_CHARS
 * it reads all of it. A longer text would cost seconds of windowing, cue and verbatim scanning
 * on the event loop (a 20 MB answer held every other request for ~6 s, a 9 MB prompt ~8 s)
 * while the budget embeds only a few windows of it anyway; so it reads the beginning, the end
 * and blocks spread evenly between them, LONG_TEXT_MAX_CHARS in all, and the budget picks its
 * windows from those.
 */
export const LONG_TEXT_MAX_CHARS = 64 * 1024;
const BLOCK_CHARS = 2 * 1024;

export function sampleLongText(text: string): string {
  if (text.length <= LONG_TEXT_MAX_CHARS) return text;
  const blocks = Math.floor(LONG_TEXT_MAX_CHARS / BLOCK_CHARS);
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
