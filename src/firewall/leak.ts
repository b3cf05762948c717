/**
 * How much of the request's own system prompt the response reproduces: the prompt-extraction
 * attack that succeeded. Two measures, the larger is the score (0..1):
 *   verbatim  share of the prompt's word 4-grams that appear in the response (case and
 *             punctuation ignored), counting LEAK_FULL_SHINGLES of them as "all of it" for long
 *             prompts: copying 40 consecutive-ish words of a 2,000-word prompt is a leak too;
 *   semantic  share of the prompt's windows (up to LEAK_FULL_WINDOWS) that some response window
 *             embeds within cosine LEAK_COSINE of: reformatted or lightly reworded copies.
 * Prompts shorter than LEAK_MIN_WORDS are not checked ("You are a helpful assistant." is not a
 * secret, and any answer restating it would look like a leak). Windows the encoder cannot read
 * (Thai, Ethiopic, …: readability.ts) take no part in the semantic measure, on either side: they
 * embed alike whatever they say, so any answer in such a script would "reproduce" such a prompt.
 */
import { foldForModels, hasTokens } from "../embeddings/model-text";
import type { Readability } from "../embeddings/readability";
import { textWindows } from "./windows";

const SHINGLE_WORDS = 4;
export const LEAK_MIN_WORDS = 12;
const LEAK_FULL_SHINGLES = 40;
const LEAK_FULL_WINDOWS = 4;
/** Raw cosine: near-copies score 0.95+, an answer that merely restates the assistant's role ~0.7–0.85. */
const LEAK_COSINE = 0.9;

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

export class SystemPromptLeak {
  /** The prompt's windows the encoder can read, compared by embedding (the first LEAK_FULL_WINDOWS carry the score). */
  readonly windows: string[];
  readonly #long: boolean;
  readonly #shingles: Set<string>;
  readonly #found = new Set<string>();
  readonly #matchedWindows = new Set<number>();
  /** Characters of the response already read into shingles, and the last words read. */
  #consumed = 0;
  #recent: string[] = [];
  #bestCosine = 0;

  /** Whether a system prompt is long enough to be checked at all (LEAK_MIN_WORDS), without building the check. */
  static checks(systemPrompt: string): boolean {
    return words(systemPrompt).length >= LEAK_MIN_WORDS;
  }

  constructor(systemPrompt: string, windowTokens: number, readability?: Readability) {
    const promptWords = words(systemPrompt);
    this.#long = promptWords.length >= LEAK_MIN_WORDS;
    this.#shingles = new Set();
    for (let i = 0; i + SHINGLE_WORDS <= promptWords.length; i++) this.#shingles.add(promptWords.slice(i, i + SHINGLE_WORDS).join(" "));
    const readable = (window: string) => hasTokens(window) && (readability?.readable(window) ?? true);
    this.windows = this.#long ? textWindows(foldForModels(systemPrompt), windowTokens).filter(readable).slice(0, LEAK_FULL_WINDOWS) : [];
  }

  get active(): boolean {
    return this.#long;
  }

  /** Reads the response up to its last complete word (all of it when `final`): a leak ending in "…prompt." counts on that chunk. */
  observeText(textSoFar: string, final: boolean): void {
    const end = final ? textSoFar.length : Math.max(this.#consumed, lastBoundary(textSoFar));
    if (end <= this.#consumed) return;
    for (const word of words(textSoFar.slice(this.#consumed, end))) {
      this.#recent.push(word);
      if (this.#recent.length > SHINGLE_WORDS) this.#recent.shift();
      if (this.#recent.length === SHINGLE_WORDS) {
        const shingle = this.#recent.join(" ");
        if (this.#shingles.has(shingle)) this.#found.add(shingle);
      }
    }
    this.#consumed = end;
  }

  /** cosines[i][j]: response window i against prompt window j. */
  observeCosines(cosines: number[][]): void {
    for (const row of cosines) {
      row.forEach((cosine, j) => {
        this.#bestCosine = Math.max(this.#bestCosine, cosine);
        if (cosine >= LEAK_COSINE) this.#matchedWindows.add(j);
      });
    }
  }

  get bestCosine(): number {
    return this.#bestCosine;
  }

  get share(): number {
    if (!this.active) return 0;
    const verbatim = this.#found.size / Math.min(this.#shingles.size, LEAK_FULL_SHINGLES);
    const semantic = this.windows.length > 0 ? this.#matchedWindows.size / this.windows.length : 0;
    return Math.min(1, Math.max(verbatim, semantic));
  }
}

/** Index just after the last character that is not part of a word: every word before it is complete. */
function lastBoundary(text: string): number {
  const match = /[^\p{L}\p{N}](?=[\p{L}\p{N}]*$)/u.exec(text);
  return match ? match.index + 1 : 0;
}
