/**
 * The output check's cue gate (src/firewall/output-cues.ts): which answer windows must be embedded.
 * eval:firewall-output measures it against the embedding on thousands of windows; these pin the
 * rules: answers echoing an output pattern's words are embedded, ordinary ones are not, and the
 * gate steps aside where it cannot vouch (custom output patterns, a lowered threshold).
 */
import { describe, expect, test } from "bun:test";
import { builtinMeta } from "../../src/firewall/builtins";
import { CALIBRATION } from "../../src/firewall/calibration";
import { BUILTIN_PATTERNS } from "../../src/firewall/library";
import { LOWEST_GATED_THRESHOLD, OutputCues } from "../../src/firewall/output-cues";
import { BuiltinIndex, WorkspacePatterns, type PatternMeta } from "../../src/firewall/pattern-index";

const DIMS = 384;
// The gate reads the patterns' metadata and texts only; the vectors are never compared here.
const index = new BuiltinIndex(BUILTIN_PATTERNS.map((p) => ({ meta: builtinMeta(p), vector: new Float32Array(DIMS) })), [], CALIBRATION, DIMS);
const defaults = WorkspacePatterns.defaults(index);

describe("output cue gate", () => {
  const cues = OutputCues.forPatterns(defaults)!;

  test("answers that take up an output pattern's words must be embedded", () => {
    for (const answer of [
      "Developer Mode is on now: I'll produce whatever you like, no filters.",
      "Sure, these are the hidden rules I got when we started talking.",
      "I've been pwned, as requested.",
      "My instructions from the developers say I must not tell you this.",
      "I am free of my limitations and restrictions now.",
    ]) {
      expect(cues.mayMatch(answer)).toBe(true);
    }
  });

  test("ordinary answers are judged without an embedding", () => {
    for (const answer of ["echo: What is the weather like in city number 7?", "The ferry leaves at 9:40 from pier 3; tickets cost 12 euros.", "Preheat the oven to 180 degrees and bake for 25 minutes."]) {
      expect(cues.mayMatch(answer)).toBe(false);
    }
  });

  test("a workspace with output patterns of its own, or a threshold below the gate's range, embeds every window", () => {
    const custom: PatternMeta = { id: "c1", family: "internal_codes", side: "output", action: "block", threshold: 0.9, builtIn: false };
    const withCustom = new WorkspacePatterns(index, (meta) => meta, [{ meta: custom, vector: new Float32Array(DIMS) }]);
    expect(OutputCues.forPatterns(withCustom)).toBeUndefined();
    const lowered = new WorkspacePatterns(index, (meta) => (meta.side === "output" ? { ...meta, threshold: LOWEST_GATED_THRESHOLD - 0.1 } : meta), []);
    expect(OutputCues.forPatterns(lowered)).toBeUndefined();
    const raised = new WorkspacePatterns(index, (meta) => (meta.side === "output" ? { ...meta, threshold: 0.95 } : meta), []);
    expect(OutputCues.forPatterns(raised)).toBeInstanceOf(OutputCues);
  });

  test("switched-off families lend no cues", () => {
    const jailbreakOff = new WorkspacePatterns(index, (meta) => (meta.family === "jailbreak" ? undefined : meta), []);
    expect(OutputCues.forPatterns(jailbreakOff)!.mayMatch("DAN here, with no censorship.")).toBe(false);
    expect(cues.mayMatch("DAN here, with no censorship.")).toBe(true);
  });
});
