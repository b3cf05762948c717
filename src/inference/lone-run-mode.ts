/**
 * Decides whether a short text that runs alone uses the wide session (every core) or a one-thread
 * session. On an idle machine wide is faster (16 tokens: ~1.6 vs ~2.4 ms on 2 cores); when other
 * processes keep the cores busy its threads wait on each other and it can become slower than one
 * thread. So both are timed on lone runs only, and the faster one is used; every EXPLORE_EVERY-th
 * lone run tries the other so a change is noticed. Each mode is judged by the median of its last
 * few runs, and the mode in use changes only when the other is clearly faster (SWITCH_MARGIN): with
 * a moving average, the odd slow run (the event loop or another process taking a core for a moment)
 * handed a fifth of the runs to the slower mode, which then kept them until the faster one's rare
 * trial runs had pulled its average back.
 *
 * Runs are compared within a length bucket (a power of two of tokens): a run's fixed cost makes
 * the time per token depend on length, and at concurrency 1 lone runs alternate between a prompt
 * and its answer, so a single explore counter would always try the other mode on the same one.
 */
export type RunMode = "wide" | "narrow";

const EXPLORE_EVERY = 16;
/** Runs per mode whose median judges it. */
const RECENT = 9;
/** The other mode's median must be at least this much shorter to take over. */
const SWITCH_MARGIN = 0.15;

type Bucket = { runs: number; current: RunMode; recent: Record<RunMode, number[]> };

export class LoneRunMode {
  readonly #buckets = new Map<number, Bucket>();

  /** The mode for the next lone run of `tokens` tokens. */
  next(tokens: number): RunMode {
    const bucket = this.#bucket(tokens);
    bucket.runs++;
    return bucket.runs % EXPLORE_EVERY === 0 ? other(bucket.current) : bucket.current;
  }

  /** What a lone run of `tokens` tokens took in `mode`. */
  observe(mode: RunMode, tokens: number, ms: number): void {
    const bucket = this.#bucket(tokens);
    const recent = bucket.recent[mode];
    recent.push(ms);
    if (recent.length > RECENT) recent.shift();
    const [current, challenger] = [median(bucket.recent[bucket.current]), median(bucket.recent[other(bucket.current)])];
    if (current !== undefined && challenger !== undefined && challenger < current * (1 - SWITCH_MARGIN)) bucket.current = other(bucket.current);
  }

  /** Wide until a one-thread lone run of about this length has been timed clearly faster. */
  best(tokens: number): RunMode {
    return this.#bucket(tokens).current;
  }

  #bucket(tokens: number): Bucket {
    const key = Math.floor(Math.log2(Math.max(1, tokens)));
    let bucket = this.#buckets.get(key);
    if (!bucket) this.#buckets.set(key, (bucket = { runs: 0, current: "wide", recent: { wide: [], narrow: [] } }));
    return bucket;
  }
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

function other(mode: RunMode): RunMode {
  return mode === "wide" ? "narrow" : "wide";
}
