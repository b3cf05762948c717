/**
 * Which answer windows the output check has to embed. An output-side pattern fires when a window
 * embeds within the family's threshold of its text (a raw cosine of 0.75 at the default 0.9), and
 * the firewall's encoder (the general model's layer 4) does not put a window that close to a
 * sentence it shares no content word with: measured by `npm run eval:firewall-output` on a sample
 * of the training files and the project's output-side set, every window scoring 0.8 or more
 * against an output pattern shares at least one word stem with the patterns (the highest score a
 * window without one reached was ~0.75; the default threshold is 0.9). A window with none of the enabled
 * patterns' stems is therefore judged without an embedding, at no inference cost; ordinary
 * answers mostly are.
 *
 * The gate is a conservative pre-check, never a detector: when it cannot vouch (a workspace's own
 * output patterns, whose texts are not held in memory; a threshold lowered below the measured
 * range) every window is embedded as before. The system-prompt check has its own gate (leak.ts).
 */
import { BUILTIN_PATTERNS } from "./library";
import type { WorkspacePatterns } from "./pattern-index";

/** Letters of a word's stem: English and Romance inflections ("instructions", "instructed") share theirs. */
const STEM_LETTERS = 5;
/**
 * Function words never count as a cue: an answer is made of them. Only words of the pattern texts
 * matter here; the list holds the ones those texts use.
 */
const FUNCTION_WORDS = new Set(
  "the and are for that this with have has you your will can not all any now here what was were been from into than then them they their there these those its it's i'm i've before below after about which who whom whose would could should just also very more most some such only other being does did doing".split(" "),
);
/**
 * Words of the patterns too common in ordinary answers to cue anything: dropping them kept every
 * window scoring 0.8 or more let through on the training sample (eval:firewall-output), and lets
 * far more ordinary answers skip the embedding.
 */
const GENERIC_WORDS = new Set("how new com https example data start given act content generate question answer information following follow".split(" "));
/**
 * The lowest pattern threshold the gate vouches for (a score; the family defaults are 0.9): on the
 * training sample no window the gate skipped scored above ~0.75. Below it every window is embedded.
 */
export const LOWEST_GATED_THRESHOLD = 0.8;

const wordsOf = (text: string) => text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const stemOf = (word: string) => word.slice(0, STEM_LETTERS);

/** The cue stems of some pattern texts. */
export function cueStems(texts: string[]): Set<string> {
  const stems = new Set<string>();
  for (const text of texts) for (const word of wordsOf(text)) if (word.length >= 3 && !FUNCTION_WORDS.has(word) && !GENERIC_WORDS.has(word)) stems.add(stemOf(word));
  return stems;
}

/** One gate per workspace view of the patterns (rebuilt with it when a pattern changes). */
const gates = new WeakMap<WorkspacePatterns, OutputCues | undefined>();

export class OutputCues {
  /** `stems`: the patterns' (shared by every request of the workspace); `own`: one request's, such as its system prompt's. */
  constructor(
    readonly stems: Set<string>,
    readonly own?: Set<string>,
  ) {}

  /** These cues and a request's own stems (its system prompt's), without copying the shared set. */
  with(own: Set<string>): OutputCues {
    return new OutputCues(this.stems, own);
  }

  /**
   * The gate for a workspace's output side, or undefined when every window must be embedded: it
   * has output patterns of its own, or a built-in's threshold is below LOWEST_GATED_THRESHOLD.
   */
  static forPatterns(patterns: WorkspacePatterns): OutputCues | undefined {
    if (!gates.has(patterns)) gates.set(patterns, OutputCues.#build(patterns));
    return gates.get(patterns);
  }

  static #build(patterns: WorkspacePatterns): OutputCues | undefined {
    if (patterns.customOutput.length > 0) return undefined;
    const enabled = patterns.builtinOutput.filter((_, row) => patterns.outputEnabled[row]);
    if (enabled.some((meta) => meta.threshold < LOWEST_GATED_THRESHOLD)) return undefined;
    const ids = new Set(enabled.map((meta) => meta.id));
    return new OutputCues(cueStems(BUILTIN_PATTERNS.filter((pattern) => ids.has(pattern.slug)).map((pattern) => pattern.text)));
  }

  /** Whether the window shares a stem with an enabled pattern, so it must be embedded. */
  mayMatch(window: string): boolean {
    for (const word of wordsOf(window)) {
      if (word.length < 3) continue;
      const stem = stemOf(word);
      if (this.stems.has(stem) || this.own?.has(stem)) return true;
    }
    return false;
  }
}
