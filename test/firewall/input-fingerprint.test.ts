/**
 * WorkspacePatterns.inputFingerprint: what document chunks remember of the patterns they were
 * scanned with (docs/documents.md, *Poisoned-chunk flags*). It must change with every choice that
 * changes a chunk's verdict, stay put for those that cannot, and not depend on row order (every
 * instance of a fleet computes it from rows its database returns in no set order).
 */
import { describe, expect, test } from "bun:test";
import { builtinMeta } from "../../src/firewall/builtins";
import { CALIBRATION } from "../../src/firewall/calibration";
import { BUILTIN_PATTERNS } from "../../src/firewall/library";
import { BuiltinIndex, WorkspacePatterns, type IndexedPattern, type PatternMeta } from "../../src/firewall/pattern-index";

const DIMS = 384;
const builtinRows = (order: "library" | "reversed") => {
  const rows = BUILTIN_PATTERNS.map((p, i) => ({ meta: builtinMeta(p), vector: Float32Array.from({ length: DIMS }, (_, d) => Math.sin(i + d)) }));
  return order === "library" ? rows : rows.reverse();
};
const index = new BuiltinIndex(builtinRows("library"), [], CALIBRATION, DIMS);
const firstInput = index.input[0]!;
const firstOutput = index.output[0]!;

function custom(id: string, text: number, overrides: Partial<PatternMeta> = {}): IndexedPattern {
  return { meta: { id, family: "custom", side: "input", action: "block", threshold: 0.8, builtIn: false, ...overrides }, vector: Float32Array.from({ length: DIMS }, (_, d) => Math.cos(text + d)) };
}

const fingerprint = (builtinFor: (meta: PatternMeta) => PatternMeta | undefined = (meta) => meta, customs: IndexedPattern[] = [], builtins = index) =>
  new WorkspacePatterns(builtins, builtinFor, customs).inputFingerprint;

describe("the input patterns' fingerprint", () => {
  const defaults = fingerprint();

  test("is the same for the same choices, whatever order the rows came in", () => {
    expect(fingerprint()).toBe(defaults);
    expect(fingerprint(undefined, [], new BuiltinIndex(builtinRows("reversed"), [], CALIBRATION, DIMS))).toBe(defaults);
    expect(fingerprint(undefined, [custom("a", 1), custom("b", 2)])).toBe(fingerprint(undefined, [custom("b", 2), custom("a", 1)]));
  });

  test("changes when a built-in input pattern is switched off or given another threshold or action", () => {
    const off = fingerprint((meta) => (meta.id === firstInput.id ? undefined : meta));
    const threshold = fingerprint((meta) => (meta.id === firstInput.id ? { ...meta, threshold: meta.threshold - 0.05 } : meta));
    const action = fingerprint((meta) => (meta.id === firstInput.id ? { ...meta, action: meta.action === "block" ? "warn" : "block" } : meta));
    expect(new Set([defaults, off, threshold, action]).size).toBe(4);
  });

  test("changes when a custom input pattern is added or its text (its vector) changes", () => {
    const added = fingerprint(undefined, [custom("a", 1)]);
    expect(added).not.toBe(defaults);
    expect(fingerprint(undefined, [custom("a", 2)])).not.toBe(added);
  });

  test("ignores output-side patterns, which never score a chunk", () => {
    expect(fingerprint((meta) => (meta.id === firstOutput.id ? undefined : meta))).toBe(defaults);
    expect(fingerprint(undefined, [custom("out", 3, { side: "output" })])).toBe(defaults);
  });
});
