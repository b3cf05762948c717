const WINDOW_MS = 15 * 60 * 1000;
/** Memory bound: beyond this many tracked accounts/addresses the oldest are forgotten. */
const MAX_TRACKED = 100_000;

/**
 * Failed logins per account and per client address within a sliding 15-minute window. At the
 * limit further attempts get 429 until the oldest failure leaves the window, whether the
 * password is right or not, so guessing costs the attacker the window, not a hash per try.
 * A client address may fail 4× as often as one account (several people behind one NAT).
 * In memory: a restart forgets the counts, which a single-process sidecar can live with.
 */
export class LoginThrottle {
  readonly #failures = new Map<string, number[]>();

  constructor(private readonly maxPerAccount: number) {}

  /** Seconds until a login may be tried again; 0 when it may be tried now. */
  retryAfter(email: string, address: string | undefined, now = Date.now()): number {
    const waits = [this.#wait(`account:${email}`, this.maxPerAccount, now)];
    if (address) waits.push(this.#wait(`address:${address}`, this.maxPerAccount * 4, now));
    return Math.max(...waits);
  }

  failed(email: string, address: string | undefined, now = Date.now()): void {
    this.#add(`account:${email}`, this.maxPerAccount, now);
    if (address) this.#add(`address:${address}`, this.maxPerAccount * 4, now);
  }

  /** A successful login clears the account's failures (not the address's). */
  succeeded(email: string): void {
    this.#failures.delete(`account:${email}`);
  }

  #recent(key: string, now: number): number[] {
    const times = (this.#failures.get(key) ?? []).filter((at) => now - at < WINDOW_MS);
    if (times.length === 0) this.#failures.delete(key);
    return times;
  }

  #wait(key: string, limit: number, now: number): number {
    const times = this.#recent(key, now);
    return times.length < limit ? 0 : Math.max(1, Math.ceil((times[times.length - limit]! + WINDOW_MS - now) / 1000));
  }

  #add(key: string, limit: number, now: number): void {
    const times = [...this.#recent(key, now), now].slice(-limit);
    this.#failures.delete(key); // re-insert: the map's order is the eviction order
    this.#failures.set(key, times);
    if (this.#failures.size > MAX_TRACKED) this.#failures.delete(this.#failures.keys().next().value!);
  }
}
