import type { Logger } from "../logging/logger";

/**
 * Work an answer does not wait for (its evidence record, usage and metrics, its cache write) runs
 * once the response is on its way: done before it, a cache transaction and an evidence record
 * added about a millisecond to every answer (A/B in one server, parallel mode; docs/performance.md).
 * The server's stop waits for what is still pending before it closes the evidence writer and the
 * database, so nothing answered goes unrecorded.
 */
export class AfterResponse {
  #pending = 0;
  #whenIdle: (() => void)[] = [];

  constructor(private readonly log: Logger) {}

  /** Runs `work` after the current response is written; a promise it returns is waited for by `idle`. */
  run(work: () => unknown): void {
    this.#pending++;
    setImmediate(async () => {
      try {
        await work();
      } catch (error) {
        this.log.error("work after a response failed", { error: (error as Error).message });
      } finally {
        if (--this.#pending === 0) for (const resolve of this.#whenIdle.splice(0)) resolve();
      }
    });
  }

  /** Resolves once no work is pending. */
  idle(): Promise<void> {
    return this.#pending === 0 ? Promise.resolve() : new Promise((resolve) => this.#whenIdle.push(resolve));
  }
}
