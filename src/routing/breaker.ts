import type { BreakerPolicy } from "./model";

export type BreakerState = "closed" | "open" | "half_open";

/** Buckets of the failure-rate window: the rate is read over whole buckets, so memory stays fixed whatever the traffic. */
const BUCKETS = 10;

/**
 * One target's circuit breaker (per instance, in memory). Closed: every request may try the
 * target. It opens after `consecutive_failures` failed attempts in a row, or when at least
 * `failure_rate` of the attempts in the last `window_ms` failed (once there were `min_requests`).
 * Open: requests skip the target, so a dead target costs one timeout, not one per request.
 * After `cooldown_ms` one request probes it (half-open): success closes the circuit, failure
 * opens it again.
 */
export class CircuitBreaker {
  #state: BreakerState = "closed";
  #consecutive = 0;
  #openedAt = 0;
  #probing = false;
  readonly #attempts = new Array<number>(BUCKETS).fill(0);
  readonly #failures = new Array<number>(BUCKETS).fill(0);
  #bucketStart = 0;
  #bucket = 0;

  constructor(
    public policy: BreakerPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): BreakerState {
    if (this.#state === "open" && this.now() - this.#openedAt >= this.policy.cooldown_ms) return "half_open";
    return this.#state;
  }

  /** Milliseconds until an open circuit lets a probe through (0 when it is not open). */
  get retryInMs(): number {
    return this.#state === "open" ? Math.max(0, this.policy.cooldown_ms - (this.now() - this.#openedAt)) : 0;
  }

  /**
   * May a request try the target now? In half-open only one request at a time (the probe) may:
   * the caller reports its result with success()/failure(), or release() if it never finished.
   */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === "closed") return true;
    if (state === "open" || this.#probing) return false;
    this.#state = "half_open";
    this.#probing = true;
    return true;
  }

  success(): void {
    this.#count(false);
    this.#consecutive = 0;
    this.#probing = false;
    if (this.#state !== "closed") this.#close();
  }

  failure(): void {
    this.#count(true);
    this.#consecutive++;
    this.#probing = false;
    if (this.#state === "half_open" || this.#consecutive >= this.policy.consecutive_failures || this.#rateExceeded()) this.#open();
  }

  /** A probe that ended without a verdict on the target (the client left): another may probe. */
  release(): void {
    this.#probing = false;
  }

  #open(): void {
    this.#state = "open";
    this.#openedAt = this.now();
  }

  #close(): void {
    this.#state = "closed";
    this.#attempts.fill(0);
    this.#failures.fill(0);
  }

  #rateExceeded(): boolean {
    let attempts = 0;
    let failures = 0;
    for (let i = 0; i < BUCKETS; i++) {
      attempts += this.#attempts[i]!;
      failures += this.#failures[i]!;
    }
    return attempts >= this.policy.min_requests && failures / attempts >= this.policy.failure_rate;
  }

  /** Adds one attempt to the current bucket, first emptying the buckets the clock has moved past. */
  #count(failed: boolean): void {
    const width = this.policy.window_ms / BUCKETS;
    const now = this.now();
    const steps = Math.floor((now - this.#bucketStart) / width);
    if (steps > 0) {
      for (let i = 1; i <= Math.min(steps, BUCKETS); i++) {
        const index = (this.#bucket + i) % BUCKETS;
        this.#attempts[index] = 0;
        this.#failures[index] = 0;
      }
      this.#bucket = (this.#bucket + steps) % BUCKETS;
      this.#bucketStart += steps * width;
      if (now - this.#bucketStart >= width) this.#bucketStart = now;
    }
    this.#attempts[this.#bucket]!++;
    if (failed) this.#failures[this.#bucket]!++;
  }
}

/**
 * Circuit breakers by key: a file target's name, or `<workspace>/<name>` for a workspace's own. A
 * reloaded file keeps the state of the targets it still names.
 */
export class Breakers {
  readonly #byTarget = new Map<string, CircuitBreaker>();

  constructor(private readonly now: () => number = Date.now) {}

  for(key: string, policy: BreakerPolicy): CircuitBreaker {
    let breaker = this.#byTarget.get(key);
    if (!breaker) this.#byTarget.set(key, (breaker = new CircuitBreaker(policy, this.now)));
    else breaker.policy = policy;
    return breaker;
  }

  /** The breaker of `key` if one was made (a target never tried has none: it is closed). */
  peek(key: string): CircuitBreaker | undefined {
    return this.#byTarget.get(key);
  }

  /** Drops the breakers of targets a new file no longer names. */
  keepOnly(names: Iterable<string>): void {
    const keep = new Set(names);
    for (const name of this.#byTarget.keys()) if (!keep.has(name)) this.#byTarget.delete(name);
  }

  entries(): IterableIterator<[string, CircuitBreaker]> {
    return this.#byTarget.entries();
  }
}
