/**
 * The real inference worker, made to die on one input: a run of exactly DYING_TOKEN_COUNT token
 * ids throws out of the message handler, as a native crash or an out-of-memory would end the
 * thread. Lets the pool's crash handling be tested with real sessions on every other input.
 */
import type { ToWorker } from "../../src/inference/protocol.ts";

declare const self: Worker;

export const DYING_TOKEN_COUNT = 7;

// Imported by the test for the constant: only a worker thread becomes the worker.
if (!Bun.isMainThread) {
  // The pool's first messages may arrive while the real worker module is still loading.
  const early: MessageEvent<ToWorker>[] = [];
  self.onmessage = (event: MessageEvent<ToWorker>) => early.push(event);
  await import("../../src/inference/worker.ts");
  const handle = self.onmessage!;
  const dying = (event: MessageEvent<ToWorker>) => {
    if (event.data.type === "run" && event.data.ids.length === DYING_TOKEN_COUNT) throw new Error("injected worker failure");
    handle.call(self, event);
  };
  self.onmessage = dying;
  for (const event of early) dying(event);
}
