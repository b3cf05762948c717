import type { Detector } from "./detector";
import type { CustomPattern, Detection } from "./model";

/** The most matches one custom pattern reports in one text; the rest of the text is not searched. */
export const MAX_CUSTOM_MATCHES = 1000;
/** Longest a probe may run at save time before the pattern is refused as too slow. */
const PROBE_LIMIT_MS = 10;
/** Custom patterns search texts in pieces of at most this many characters (cut at a space when there is one). */
export const CUSTOM_SEGMENT_CHARS = 4096;
/** Doubling sizes: a slow pattern is caught at a small size, at most a few times over the limit. */
const PROBE_SIZES = [16, 32, 64, 128, 256, 512, 1024, 2048, CUSTOM_SEGMENT_CHARS];
/** Unbounded quantifiers (*, +, {n,}) one pattern may hold: with k of them backtracking grows at worst like n^(k+1). */
const MAX_UNBOUNDED_QUANTIFIERS = 3;
/** Inputs that make backtracking patterns blow up: long runs of one character class, then a character that fails the match. */
const PROBE_UNITS = ["a", "A", "1", " ", "a1", "aA", "-", ".", "_", "@", "a ", "1.", "ab", "x=", "\t"];

/**
 * Why a pattern is refused, or undefined when it may be used. JavaScript regexes cannot be
 * interrupted while they run, so a pattern is checked before it is stored: it must compile, must
 * not match the empty string, must not quantify a group that itself holds a quantifier or an
 * alternation (the shapes of exponential backtracking, e.g. (a+)+ or (a|aa)*), must not use
 * backreferences, must hold at most three unbounded quantifiers, and must stay fast on adversarial
 * probes up to the size of the pieces it searches (polynomial backtracking such as \d*\d*\d*x shows
 * there, at a small size first). At run time a pattern searches a text in pieces of 4096
 * characters and reports at most 1000 matches.
 */
export function customPatternProblem(pattern: string): string | undefined {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, "g");
  } catch (error) {
    return `does not compile: ${(error as Error).message}`;
  }
  if (/\\[1-9]|\\k</.test(pattern)) return "backreferences are not allowed";
  const nested = nestedQuantifier(pattern);
  if (nested) return nested;
  const unbounded = pattern.replace(/\\./g, "").replace(/\[[^\]]*\]/g, "").match(/[*+]|\{\d*,\}/g)?.length ?? 0;
  if (unbounded > MAX_UNBOUNDED_QUANTIFIERS) return `at most ${MAX_UNBOUNDED_QUANTIFIERS} unbounded quantifiers (*, +, {n,}) are allowed`;
  if (new RegExp(pattern).test("")) return "matches the empty string";
  for (const size of PROBE_SIZES) {
    for (const unit of PROBE_UNITS) {
      const probe = unit.repeat(Math.ceil(size / unit.length)) + "\u0000!";
      if (fastestProbeMs(regex, probe) > PROBE_LIMIT_MS) return `too slow: more than ${PROBE_LIMIT_MS} ms on a ${size}-character probe (catastrophic backtracking)`;
    }
  }
  return undefined;
}

/** Tries before a pattern is called slow: on a busy host one run can lose its core; a backtracking pattern is slow every time. */
const PROBE_TRIES = 3;

/** The fastest of up to PROBE_TRIES runs of the pattern over the probe (stops at the first within the limit). */
function fastestProbeMs(regex: RegExp, probe: string): number {
  let fastest = Infinity;
  for (let attempt = 0; attempt < PROBE_TRIES && fastest > PROBE_LIMIT_MS; attempt++) {
    const started = performance.now();
    regex.lastIndex = 0;
    let count = 0;
    while (regex.exec(probe) && ++count < MAX_CUSTOM_MATCHES);
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

/** Finds a quantified group that contains a quantifier or an alternation. */
function nestedQuantifier(pattern: string): string | undefined {
  const groups: { quantified: boolean; alternation: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (ch === "]") inClass = false;
      continue;
    }
    if (ch === "[") inClass = true;
    else if (ch === "(") groups.push({ quantified: false, alternation: false });
    else if (ch === "|" && groups.length) groups.at(-1)!.alternation = true;
    else if (ch === ")") {
      const group = groups.pop();
      const repeated = /^(?:[*+]|\{\d*,\d*\}|\{\d+\})/.exec(pattern.slice(i + 1));
      const unbounded = repeated && !/^\{(\d+)\}$|^\{\d*,1\}$/.test(repeated[0]);
      if (group && unbounded && group.quantified) return "nested quantifiers (a quantified group containing a quantifier) are not allowed";
      if (group && unbounded && group.alternation) return "a quantified group containing an alternation is not allowed";
      // What the group held counts for the group around it too.
      if (group && groups.length) {
        const outer = groups.at(-1)!;
        outer.quantified ||= group.quantified || Boolean(repeated);
        outer.alternation ||= group.alternation;
      }
    } else if (/[*+?{]/.test(ch) && groups.length && (ch !== "?" || !/[*+?}]/.test(pattern[i - 1] ?? ""))) {
      if (ch !== "?" || pattern[i - 1] !== "(") groups.at(-1)!.quantified = true;
    }
  }
  return undefined;
}

/** A workspace's own pattern as a detector of the entity type it names. */
export function customDetector(custom: CustomPattern): Detector {
  const regex = new RegExp(custom.pattern, "g");
  return {
    type: custom.name,
    detect(text) {
      const found: Detection[] = [];
      for (let from = 0; from < text.length && found.length < MAX_CUSTOM_MATCHES; ) {
        let to = Math.min(text.length, from + CUSTOM_SEGMENT_CHARS);
        if (to < text.length) {
          const space = text.lastIndexOf(" ", to);
          if (space > from + CUSTOM_SEGMENT_CHARS / 2) to = space;
        }
        const segment = text.slice(from, to);
        regex.lastIndex = 0;
        let match: RegExpExecArray | null;
        while ((match = regex.exec(segment)) && found.length < MAX_CUSTOM_MATCHES) {
          if (match[0].length === 0) {
            regex.lastIndex++;
            continue;
          }
          found.push({ type: custom.name, start: from + match.index, end: from + match.index + match[0].length });
        }
        from = to;
      }
      return found;
    },
  };
}
