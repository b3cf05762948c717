import { describe, expect, test } from "bun:test";
import { LoneRunMode, type RunMode } from "../../src/inference/lone-run-mode.ts";

/** Runs `count` lone texts of `tokens` tokens, each timed by `ms(mode)`; returns the modes chosen. */
function runs(mode: LoneRunMode, count: number, tokens: number, ms: (mode: RunMode) => number): RunMode[] {
  return Array.from({ length: count }, () => {
    const next = mode.next(tokens);
    mode.observe(next, tokens, ms(next));
    return next;
  });
}

describe("the mode of a short text that runs alone", () => {
  test("starts wide and keeps it while wide is timed faster, trying one thread every 16th run", () => {
    const mode = new LoneRunMode();
    const chosen = runs(mode, 32, 16, (m) => (m === "wide" ? 1.6 : 2.4));
    expect(chosen.filter((m) => m === "narrow")).toHaveLength(2);
    expect(chosen[15]).toBe("narrow");
    expect(chosen[31]).toBe("narrow");
    expect(mode.best(16)).toBe("wide");
  });

  test("switches to one thread when that is timed faster (a busy host), and back when the host is idle again", () => {
    const mode = new LoneRunMode();
    mode.observe("wide", 16, 1.6);
    mode.observe("narrow", 16, 2.4);
    // Other processes keep the cores busy: the wide session's threads wait on each other.
    for (let i = 0; i < 30; i++) mode.observe("wide", 16, 4.0);
    expect(mode.best(16)).toBe("narrow");
    const chosen = runs(mode, 16, 16, (m) => (m === "wide" ? 4.0 : 2.4));
    expect(chosen.filter((m) => m === "wide")).toHaveLength(1); // the exploring run
    for (let i = 0; i < 30; i++) mode.observe("wide", 16, 1.6);
    expect(mode.best(16)).toBe("wide");
  });

  test("run-to-run noise does not flip the mode: the other must be clearly faster", () => {
    const mode = new LoneRunMode();
    // Wide 2.0 ms, one thread 2.2 ms, each ±20% at random-looking steps.
    const jitter = (i: number) => 1 + 0.2 * Math.sin(i * 12.9898);
    let i = 0;
    const chosen = runs(mode, 320, 16, (m) => (m === "wide" ? 2.0 : 2.2) * jitter(i++));
    expect(chosen.filter((m) => m === "narrow")).toHaveLength(20); // the exploring runs only
    // Nor does the odd very slow run of the mode in use.
    for (const ms of [9, 2.0, 2.0, 12, 2.0]) mode.observe("wide", 16, ms);
    expect(mode.best(16)).toBe("wide");
  });

  test("compares texts of like length: prompts and longer answers alternating never pit a short wide run against a long narrow one", () => {
    const mode = new LoneRunMode();
    // Wide is faster at every length, but a 60-token run takes longer than a 20-token one in either mode.
    const time = (tokens: number) => (m: RunMode) => (m === "wide" ? 0.7 : 1) * (0.3 + 0.1 * tokens);
    const chosen: RunMode[] = [];
    for (let i = 0; i < 64; i++) {
      chosen.push(...runs(mode, 1, 20, time(20)));
      chosen.push(...runs(mode, 1, 60, time(60)));
    }
    // Each length explores one thread every 16th of its own runs, and nothing else.
    expect(chosen.filter((m) => m === "narrow")).toHaveLength(8);
    expect(mode.best(20)).toBe("wide");
    expect(mode.best(60)).toBe("wide");
  });

  test("when other texts keep arriving during lone runs, lone runs use one thread until they stop", () => {
    const mode = new LoneRunMode();
    const overlapping = (every: number, count: number) => {
      for (let i = 0; i < count; i++) {
        const next = mode.next(16);
        mode.observe(next, 16, next === "wide" ? 1.6 : 2.4, i % every === 0);
      }
    };
    overlapping(8, 16); // one run in eight overlapped: concurrency ~1
    expect(mode.busy).toBe(false);
    expect(mode.next(16)).toBe("wide");
    overlapping(2, 16); // every other run: texts come close together
    expect(mode.busy).toBe(true);
    expect(Array.from({ length: 32 }, () => mode.next(16))).not.toContain("wide");
    overlapping(1000, 16); // quiet again (only the first of these overlapped)
    expect(mode.busy).toBe(false);
    expect(mode.best(16)).toBe("wide"); // timings taken while busy did not count
  });
});
