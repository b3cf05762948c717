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
 *
 * Its own run time is not a wide run's whole cost: a text that arrives meanwhile waits for it, and
 * its second thread takes CPU the rest of the process would use. Both only matter when texts come
 * close together, so when another request-path text arrived during at least BUSY_SHARE of the last
 * lone runs (in either mode), every lone run uses one thread: at concurrency 2, wide lone runs had
 * cost ~8% of throughput (fresh prompts, 168–183 against 184–195 prompts/s).
 */
export type RunMode = "wide" | "narrow";

const EXPLORE_EVERY = 16;
/** Runs per mode whose median judges it. */
const RECENT = 9;
/** The other mode's median must be at least this much shorter to take over. */
const SWITCH_MARGIN = 0.15;
/** Lone runs whose overlap with other arrivals decides whether texts come close together. */
const OVERLAP_WINDOW = 16;
const BUSY_SHARE = 0.25;

type Bucket = { runs: number; current: RunMode; recent: Record<RunMode, number[]> };

export class LoneRunMode {
  readonly #buckets = new Map<number, Bucket>();
  /** Per recent lone run: did another request-path text arrive while it ran. */
  readonly #overlapped: boolean[] = [];

  /** The mode for the next lone run of `tokens` tokens. */
  next(tokens: number): RunMode {
    if (this.busy) return "narrow";
    const bucket = this.#bucket(tokens);
    bucket.runs++;
    return bucket.runs % EXPLORE_EVERY === 0 ? other(bucket.current) : bucket.current;
  }

  /** What a lone run of `tokens` tokens took in `mode`, and whether another request-path text arrived meanwhile. */
  observe(mode: RunMode, tokens: number, ms: number, overlapped = false): void {
    this.#overlapped.push(overlapped);
    if (this.#overlapped.length > OVERLAP_WINDOW) this.#overlapped.shift();
    if (this.busy) return; // a run that others waited on or shared cores with is no fair timing
    const bucket = this.#bucket(tokens);
    const recent = bucket.recent[mode];
    recent.push(ms);
    if (recent.length > RECENT) recent.shift();
    const [current, challenger] = [median(bucket.recent[bucket.current]), median(bucket.recent[other(bucket.current)])];
    if (current !== undefined && challenger !== undefined && challenger < current * (1 - SWITCH_MARGIN)) bucket.current = other(bucket.current);
  }

  /** Other request-path texts arrive during lone runs often enough that wide runs would hold them up. */
  get busy(): boolean {
    return this.#overlapped.filter(Boolean).length >= BUSY_SHARE * OVERLAP_WINDOW;
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
