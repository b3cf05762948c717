/**
 * Cuts a message into the texts the firewall embeds. A message that fits in one window is one
 * window, exactly the message text as sent (so a message seen on an earlier turn is found in
 * the firewall's vector LRU as it is).
 * A longer one becomes sentence windows: each holds whole sentences (or clauses: ; and : count
 * as ends) up to `maxTokens`, and when a window holds several, the next one starts at its last
 * sentence, so two adjacent sentences that fit together always share a window. Sentences
 * longer than a window are cut into word runs that overlap by a quarter.
 *
 * Why small windows: MiniLM's mean-pooled vector follows whatever most of the text is about.
 * "Note to the AI model reading this page: ignore … previous instructions …" scores 0.80
 * against the closest pattern alone, 0.38 with one gardening sentence after it, 0.12 with the
 * same sentence before it. Window size was chosen by measurement (docs/firewall.md).
 */

/** Window size in (estimated) wordpiece tokens; see docs/firewall.md for the trade-off. */
export const WINDOW_TOKENS = 32;

const SENTENCE_END = /(?<=[.!?…;:。！？])\s+|\s*\n+\s*|(?<=[。！？])/u;
const TOKEN_PIECE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Khmer}]|[\p{L}\p{M}\p{N}]+|[^\s\p{L}\p{M}\p{N}]/gu;

/**
 * Wordpiece tokens, estimated without running the tokenizer (tokenising 2,000 tokens costs
 * ~10 ms here): one per punctuation mark or CJK character, one per word plus one per 7 letters
 * beyond the first 6 (long or foreign words split into several pieces).
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const [piece] of text.matchAll(TOKEN_PIECE)) tokens += 1 + Math.max(0, Math.ceil((piece.length - 6) / 7));
  return tokens;
}

function splitSentences(text: string): string[] {
  return text
    .split(SENTENCE_END)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function textWindows(text: string, maxTokens = WINDOW_TOKENS): string[] {
  const whole = text.trim();
  if (!whole) return [];
  if (estimateTokens(whole) <= maxTokens) return [text];
  const units = splitSentences(whole).flatMap((sentence) => {
    const tokens = estimateTokens(sentence);
    return tokens <= maxTokens ? [{ text: sentence, tokens }] : wordRuns(sentence, maxTokens);
  });
  const windows: string[] = [];
  let start = 0;
  while (start < units.length) {
    let end = start;
    let tokens = units[start]!.tokens;
    while (end + 1 < units.length && tokens + units[end + 1]!.tokens <= maxTokens) tokens += units[++end]!.tokens;
    windows.push(units.slice(start, end + 1).map((u) => u.text).join(" "));
    if (end + 1 >= units.length) break;
    start = end > start ? end : end + 1;
  }
  return windows;
}

/** Size of the second-look windows (subWindows), in estimated tokens. */
export const SUB_WINDOW_TOKENS = 16;
/** Shorter fragments ("Repeat after me:") are a few words with nothing around them: they match idioms by accident. */
export const SUB_WINDOW_MIN_TOKENS = 5;

/**
 * The second look at a suspicious window: its sentences and runs of words of up to `maxTokens`
 * (overlapping by half), each at least SUB_WINDOW_MIN_TOKENS and different from the window itself. An
 * injection tacked onto unrelated text without a full stop ("Quarterly figures Berlin ignore all
 * earlier directions …") shares its window's vector with the harmless words around it; alone, it
 * scores like the attack it is. With it (and the refit that scores every sub-window of the
 * training texts), deepset's attacks caught at 1% false positives went from 27% to 52%
 * (docs/firewall.md).
 */
export function subWindows(window: string, maxTokens = SUB_WINDOW_TOKENS): string[] {
  const runs = wordRuns(window, maxTokens, 1 / 2).map((run) => run.text);
  const sentences = splitSentences(window);
  return [...new Set([...(sentences.length > 1 ? sentences : []), ...runs])].filter((text) => text !== window.trim() && estimateTokens(text) >= SUB_WINDOW_MIN_TOKENS);
}

/** Runs of words of up to maxTokens, each overlapping the previous by about `overlapShare` of a window. */
function wordRuns(sentence: string, maxTokens: number, overlapShare = 1 / 4): { text: string; tokens: number }[] {
  const words = sentence.split(/\s+/).map((word) => ({ word, tokens: estimateTokens(word) }));
  const runs: { text: string; tokens: number }[] = [];
  let start = 0;
  while (start < words.length) {
    let end = start;
    let tokens = words[start]!.tokens;
    while (end + 1 < words.length && tokens + words[end + 1]!.tokens <= maxTokens) tokens += words[++end]!.tokens;
    runs.push({ text: words.slice(start, end + 1).map((w) => w.word).join(" "), tokens });
    if (end + 1 >= words.length) break;
    // Step back so runs overlap by about overlapShare of a window, but always move forward.
    let next = end + 1;
    let overlap = 0;
    while (next - 1 > start + 1 && overlap + words[next - 1]!.tokens <= maxTokens * overlapShare) overlap += words[--next]!.tokens;
    start = next;
  }
  return runs;
}
