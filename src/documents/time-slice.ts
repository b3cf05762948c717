/**
 * Long document work (packing a large text into chunks, checking a PDF's streams, deduplicating
 * thousands of chunks) runs on the server's thread. A TimeSlice lets it give sockets and timers a
 * turn every SLICE_MS, so a big upload never holds /healthz or a proxied request for longer than
 * one slice. The work is the same and so is its result: only its timing is interleaved.
 */

/** Longest stretch of synchronous document work between two turns of the event loop (with 4 ms, /healthz waited ~5 ms p95 during two jobs). */
export const SLICE_MS = 1;

/** How often the work asks for a garbage collection (see pause). */
const COLLECT_EVERY_MS = 20;

export class TimeSlice {
  #since = performance.now();
  #collectedAt = performance.now();

  /**
   * Resolves at once while the slice lasts; past it, after a setImmediate turn. Every
   * COLLECT_EVERY_MS it also asks for an asynchronous collection: counting a text's tokens leaves
   * short-lived garbage at a rate the collector's own pacing lets pile up (measured: 5 MB of
   * sentences peaked at +480 MB without it, +190 MB with it, for the same chunks).
   */
  async pause(): Promise<void> {
    const now = performance.now();
    if (now - this.#since < SLICE_MS) return;
    if (now - this.#collectedAt >= COLLECT_EVERY_MS) {
      Bun.gc(false);
      this.#collectedAt = now;
    }
    await new Promise((resolve) => setImmediate(resolve));
    this.#since = performance.now();
  }
}
