/**
 * Issue #56, defect 6: the evidence loss bound held in event-loop time, not wall time. A timer
 * cannot fire while the loop is held (40 MB bodies held it for up to ~1.4 s at a stretch), so the
 * writer also checks the oldest queued record's age, on a monotonic clock, whenever a record is
 * queued. These tests hold the loop with a busy wait: no timer can run, only record() itself.
 */
import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import type { Storage } from "../../src/db/connection";
import { EvidenceWriter, type EvidenceRecord } from "../../src/evidence/writer";
import { Logger } from "../../src/logging/logger";
import { DatabaseMetrics } from "../../src/metrics/database";

/** A storage that records the rows inserted; `fail` makes the next inserts throw. */
function fakeStorage(opts: { inTransaction?: boolean } = {}) {
  const written: string[] = [];
  const state = { fail: false, attempts: 0, inTransaction: opts.inTransaction ?? false };
  const storage = {
    dialect: "sqlite",
    sqlite: {
      get inTransaction() {
        return state.inTransaction;
      },
    },
    insertIgnoring: async (_table: unknown, rows: EvidenceRecord[]) => {
      state.attempts++;
      if (state.fail) throw new Error("database down");
      written.push(...rows.map((row) => row.requestId));
    },
  } as unknown as Storage;
  return { storage, written, state };
}

const entry = (requestId: string) => ({ requestId }) as EvidenceRecord;
const holdLoop = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};
const microtasks = () => new Promise<void>((resolve) => queueMicrotask(resolve));
const writer = (storage: Storage, intervalMs: number) => new EvidenceWriter(storage, new Logger("error", () => {}), intervalMs, new DatabaseMetrics(new Registry()));

describe("evidence writer in wall time (issue #56, defect 6)", () => {
  test("a record queued after the loop was held past the interval writes the whole batch at once", async () => {
    const { storage, written } = fakeStorage();
    const evidence = writer(storage, 100);
    evidence.record(entry("a"));
    holdLoop(150); // the flush timer is due, but cannot fire
    evidence.record(entry("b"));
    await microtasks();
    // Before any timer could run: written in wall time, not when the loop comes back.
    expect(written).toEqual(["a", "b"]);
    expect(evidence.pending).toBe(0);
  });

  test("within the interval records wait for the timer (one batch, not a write per record)", async () => {
    const { storage, written } = fakeStorage();
    const evidence = writer(storage, 100);
    evidence.record(entry("a"));
    evidence.record(entry("b"));
    await microtasks();
    expect(written).toEqual([]);
    await Bun.sleep(150);
    expect(written).toEqual(["a", "b"]);
  });

  test("inside an open SQLite transaction an overdue batch is written on the next turn, not joined to it", async () => {
    const { storage, written, state } = fakeStorage({ inTransaction: true });
    const evidence = writer(storage, 100);
    evidence.record(entry("a"));
    holdLoop(150);
    evidence.record(entry("b"));
    await microtasks();
    expect(written).toEqual([]);
    state.inTransaction = false;
    await Bun.sleep(5);
    expect(written).toEqual(["a", "b"]);
  });

  test("after a failed write, queued records do not retry at every record: the retry waits five intervals", async () => {
    const { storage, written, state } = fakeStorage();
    const evidence = writer(storage, 50);
    state.fail = true;
    evidence.record(entry("a"));
    holdLoop(60);
    evidence.record(entry("b")); // overdue: written now, and fails
    await microtasks();
    expect(state.attempts).toBe(1);
    holdLoop(60);
    evidence.record(entry("c")); // overdue again, but the retry is not due yet
    await microtasks();
    expect(state.attempts).toBe(1);
    state.fail = false;
    await Bun.sleep(300); // the retry timer (5 × 50 ms)
    expect(written.sort()).toEqual(["a", "b", "c"]);
    await evidence.close();
  });
});
