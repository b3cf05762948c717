import { describe, expect, test } from "bun:test";
import { LoneRunMode } from "../../src/inference/lone-run-mode.ts";

describe("the mode of a text that runs alone", () => {
  test("starts wide and keeps it while wide is timed faster, trying one thread every 16th run", () => {
    const mode = new LoneRunMode();
    const chosen = Array.from({ length: 32 }, () => {
      const next = mode.next();
      mode.observe(next, 16, next === "wide" ? 1.5 : 2.3);
      return next;
    });
    expect(chosen.filter((m) => m === "narrow")).toHaveLength(2);
    expect(chosen[15]).toBe("narrow");
    expect(chosen[31]).toBe("narrow");
    expect(mode.best).toBe("wide");
  });

  test("switches to one thread when that is timed faster per token (a busy machine), and back when the machine is idle again", () => {
    const mode = new LoneRunMode();
    mode.observe("wide", 16, 1.5);
    mode.observe("narrow", 16, 2.3);
    // Other processes keep the cores busy: wide runs wait on each other.
    for (let i = 0; i < 30; i++) mode.observe("wide", 16, 4.0);
    expect(mode.best).toBe("narrow");
    const chosen = Array.from({ length: 16 }, () => mode.next());
    expect(chosen.filter((m) => m === "wide")).toHaveLength(1); // the exploring run
    for (let i = 0; i < 30; i++) mode.observe("wide", 16, 1.5);
    expect(mode.best).toBe("wide");
  });

  test("compares per token: a long wide run is not mistaken for a slow one", () => {
    const mode = new LoneRunMode();
    mode.observe("narrow", 16, 2.3);
    mode.observe("wide", 256, 20);
    expect(mode.best).toBe("wide");
  });
});
