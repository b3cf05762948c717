/**
 * Decides whether a text that runs alone uses the wide session (every core) or a one-thread
 * session. On an idle machine wide is faster (16 tokens: ~1.5 vs ~2.3 ms on 2 cores); when other
 * processes keep the cores busy its threads wait on each other and it becomes slower than one
 * thread. So both are timed on lone runs only (same conditions, same kinds of text) and the faster
 * one per token is used; every EXPLORE_EVERY-th lone run tries the other so a change is noticed.
 */
export type RunMode = "wide" | "narrow";

const EXPLORE_EVERY = 16;
/** Weight of the newest run in the moving average: ~the last 20 runs count. */
const ALPHA = 0.1;

export class LoneRunMode {
  readonly #msPerToken: Record<RunMode, number | undefined> = { wide: undefined, narrow: undefined };
  #lone = 0;

  /** The mode for the next lone run. */
  next(): RunMode {
    const best = this.best;
    this.#lone++;
    return this.#lone % EXPLORE_EVERY === 0 ? other(best) : best;
  }

  /** What a lone run of `tokens` tokens took in `mode`. */
  observe(mode: RunMode, tokens: number, ms: number): void {
    const sample = ms / Math.max(1, tokens);
    const previous = this.#msPerToken[mode];
    this.#msPerToken[mode] = previous === undefined ? sample : previous + ALPHA * (sample - previous);
  }

  /** Wide until a one-thread lone run has been timed faster. */
  get best(): RunMode {
    const { wide, narrow } = this.#msPerToken;
    return wide !== undefined && narrow !== undefined && narrow < wide ? "narrow" : "wide";
  }
}

function other(mode: RunMode): RunMode {
  return mode === "wide" ? "narrow" : "wide";
}
