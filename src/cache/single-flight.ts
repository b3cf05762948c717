/**
 * One provider call per identical request in flight: the first caller of `claim(key)` leads; the
 * others wait until the leader releases (its response stored, or failed), then claim again —
 * normally to find the stored entry at once. A waiter whose client goes away stops waiting.
 */
export class SingleFlight {
  readonly #flights = new Map<string, Promise<void>>();

  /** Resolves to the release function once this caller leads; undefined if its client left while waiting. */
  async claim(key: string, signal?: AbortSignal): Promise<(() => void) | undefined> {
    for (let flight = this.#flights.get(key); flight; flight = this.#flights.get(key)) {
      await (signal ? Promise.race([flight, aborted(signal)]) : flight);
      if (signal?.aborted) return undefined;
    }
    let resolve!: () => void;
    const flight = new Promise<void>((done) => (resolve = done));
    this.#flights.set(key, flight);
    return () => {
      if (this.#flights.get(key) === flight) this.#flights.delete(key);
      resolve();
    };
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
}
