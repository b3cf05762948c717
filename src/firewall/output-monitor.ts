/**
 * Watches the assistant's text of one response. While it streams, a check runs at a sentence
 * boundary once OUTPUT_MIN_NEW_CHARS new characters have arrived, or after OUTPUT_CHECK_CHARS
 * whatever the punctuation: the recent window of text (about one input window long, overlapping
 * the previous check) is embedded once and compared with the output-side patterns and with the
 * request's system prompt. The event that completes a window waits for that one embedding (inspect
 * then returns a promise); the others pass straight through (it answers at once). Verbatim system-prompt reproduction is counted on every chunk
 * at no embedding cost. `finish` checks what is left (for a non-streamed response: all of it).
 * A window sharing no word stem with any enabled output pattern (nor with the system prompt) is
 * judged without its embedding (output-cues.ts: such a window never comes near a pattern).
 */
import { foldForModels, hasTokens } from "../embeddings/model-text";
import { ALLOW, type FirewallVerdict, type OutputMonitor } from "../proxy/stages";
import { decide } from "./decision";
import { SystemPromptLeak } from "./leak";
import { cueStems, OutputCues } from "./output-cues";
import type { WorkspacePatterns } from "./pattern-index";
import { mayHoldEncodedRun } from "./encoded-text";
import { planWindows, readAsModel, type Embedding, type ScanOptions } from "./scan";
import { scoreOutputWindows, type PatternHit, type WindowScore } from "./scoring";
import { estimateTokens } from "./windows";

export const OUTPUT_CHECK_CHARS = 200;
export const OUTPUT_MIN_NEW_CHARS = 40;
const SENTENCE_END = /[.!?…。！？\n]/u;

export class FirewallOutputMonitor implements OutputMonitor {
  readonly #scores: WindowScore[] = [];
  readonly #leak: SystemPromptLeak | undefined;
  /** Embedded in the background from the moment the monitor exists; no chunk ever waits for it. */
  readonly #promptVectors: Promise<Float32Array[]> | undefined;
  #prompt: Float32Array[] | undefined;
  /** Response windows not yet compared with the system prompt (its vectors were not ready). */
  #uncompared: Float32Array[] = [];
  #checkedUpTo = 0;
  /** Which windows need an embedding; undefined: every window (custom output patterns, low thresholds). */
  readonly #cues: OutputCues | undefined;

  constructor(
    private readonly patterns: WorkspacePatterns,
    private readonly embedding: Embedding,
    private readonly options: ScanOptions,
    systemPrompt: string,
  ) {
    const leak = patterns.systemPrompt ? new SystemPromptLeak(systemPrompt, options.windowTokens, options.readability) : undefined;
    this.#leak = leak?.active ? leak : undefined;
    const patternCues = OutputCues.forPatterns(patterns);
    // The system prompt's own words are cues too: a reworded copy of it shares them.
    this.#cues = this.#leak ? patternCues?.with(cueStems([systemPrompt])) : patternCues;
    if (this.#leak) {
      this.#promptVectors = embedding.embedMany(this.#leak.windows);
      this.#promptVectors.then(
        (vectors) => (this.#prompt = vectors),
        () => {}, // a failure surfaces in finish()
      );
    }
  }

  /** Whether anything on the output side is switched on for this workspace. */
  static needed(patterns: WorkspacePatterns, systemPrompt: string): boolean {
    return patterns.outputEnabled.includes(1) || patterns.customOutput.length > 0 || (patterns.systemPrompt !== undefined && SystemPromptLeak.checks(systemPrompt));
  }

  /** A verdict at once when no window is due (the relay sends on without waiting), a promise when one is embedded. */
  inspect(added: string, textSoFar: string): Promise<FirewallVerdict> | FirewallVerdict {
    this.#leak?.observeText(textSoFar, false);
    const pending = textSoFar.length - this.#checkedUpTo;
    const due = pending >= OUTPUT_CHECK_CHARS || (pending >= OUTPUT_MIN_NEW_CHARS && SENTENCE_END.test(added));
    if (!due) return this.#streamVerdict();
    const window = recentWindow(textSoFar, this.options.windowTokens);
    if (this.#cues && !this.#cues.mayMatch(window)) {
      // Nothing to embed: the event goes on at once.
      this.#checkedUpTo = textSoFar.length;
      return this.#streamVerdict();
    }
    return this.#check([window]).then(() => {
      this.#checkedUpTo = textSoFar.length;
      return this.#streamVerdict();
    });
  }

  /** Only a block changes the stream; warn/log matches are reported by finish(). */
  #streamVerdict(): FirewallVerdict {
    const verdict = this.#decide();
    return verdict.action === "block" ? verdict : ALLOW;
  }

  async finish(fullText: string): Promise<FirewallVerdict> {
    this.#leak?.observeText(fullText, true);
    if (fullText.trim().length > 0 && fullText.length > this.#checkedUpTo) {
      const windows = this.#checkedUpTo === 0 ? this.#answerWindows(fullText) : [recentWindow(fullText, this.options.windowTokens)];
      await this.#check(windows);
      this.#checkedUpTo = fullText.length;
    }
    if (this.#promptVectors) {
      this.#prompt = await this.#promptVectors;
      this.#compareWithPrompt();
    }
    return this.#decide();
  }

  /**
   * A whole answer's windows, or none when the cue gate would let none through: every window is cut
   * at word boundaries from the answer as the model reads it, so an answer holding no cue stem and
   * no encoded run (whose decoded text would be windows of its own) is judged without planning any.
   */
  #answerWindows(text: string): string[] {
    if (this.#cues) {
      const read = readAsModel(text);
      if (!mayHoldEncodedRun(read) && !this.#cues.mayMatch(read)) return [];
    }
    return planWindows([text], () => false, { budgetTokens: this.options.budgetTokens, windowTokens: this.options.windowTokens }).windows;
  }

  async #check(windows: string[]): Promise<void> {
    // Windows the encoder cannot read (Thai, Ethiopic, …) embed alike whatever they say: a custom
    // output pattern in the same script would match every answer, and any answer would "reproduce"
    // such a system prompt. They are judged by their words only (the leak check's 4-grams).
    const texts = windows.map(foldForModels).filter((text) => hasTokens(text) && this.options.readability.readable(text) && (this.#cues?.mayMatch(text) ?? true));
    if (texts.length === 0) return;
    const vectors = await this.embedding.embedMany(texts);
    this.#scores.push(...scoreOutputWindows(this.patterns, vectors));
    if (this.#leak) {
      this.#uncompared.push(...vectors);
      this.#compareWithPrompt();
    }
  }

  #compareWithPrompt() {
    const prompt = this.#prompt;
    if (!prompt || !this.#leak) return;
    this.#leak.observeCosines(this.#uncompared.map((v) => prompt.map((p) => dot(v, p))));
    this.#uncompared = [];
  }

  #decide(): FirewallVerdict {
    return decide([...this.#scores, this.#leakWindow()], "output").verdict;
  }

  /** The system-prompt check as one more scored "window", so the usual decision applies. */
  #leakWindow(): WindowScore {
    const pattern = this.patterns.systemPrompt;
    if (!this.#leak || !pattern) return { best: undefined, fired: [] };
    const hit: PatternHit = { pattern, similarity: this.#leak.bestCosine, score: this.#leak.share };
    return { best: hit, fired: hit.score > pattern.threshold ? [hit] : [] };
  }
}

/** The last ~windowTokens of text, starting at a word boundary. */
export function recentWindow(text: string, windowTokens: number): string {
  let start = Math.max(0, text.length - windowTokens * 5);
  while (start > 0 && estimateTokens(text.slice(start)) < windowTokens) start = Math.max(0, start - 40);
  if (start > 0) {
    const space = text.slice(start).search(/\s/);
    if (space >= 0) start += space;
  }
  return text.slice(start).trim();
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
