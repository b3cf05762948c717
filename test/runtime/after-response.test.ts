import { describe, expect, test } from "bun:test";
import { Logger } from "../../src/logging/logger";
import { AfterResponse } from "../../src/runtime/after-response";

describe("work after a response", () => {
  test("runs after the current turn, and idle waits for the promises it returned", async () => {
    const after = new AfterResponse(new Logger("error", () => {}));
    const done: string[] = [];
    after.run(() => done.push("sync"));
    after.run(async () => {
      await Bun.sleep(30);
      done.push("async");
    });
    expect(done).toEqual([]); // nothing ran before the response could leave
    await after.idle();
    expect(done).toEqual(["sync", "async"]);
  });

  test("a failure is logged and does not keep idle waiting", async () => {
    const lines: string[] = [];
    const after = new AfterResponse(new Logger("error", (line) => lines.push(line)));
    after.run(() => {
      throw new Error("evidence entry broke");
    });
    after.run(() => Promise.reject(new Error("cache write broke")));
    await after.idle();
    expect(lines.join("\n")).toContain("evidence entry broke");
    expect(lines.join("\n")).toContain("cache write broke");
    expect(await Promise.race([after.idle().then(() => "idle"), Bun.sleep(1000).then(() => "waiting")])).toBe("idle");
  });
});
