/**
 * Per-key token buckets: `perMinute` requests per minute with a burst of the same size.
 * In memory: a limit that resets on restart is acceptable for a sidecar's abuse guard.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(private readonly perMinute: number) {}

  get enabled(): boolean {
    return this.perMinute > 0;
  }

  /** Takes one token; returns 0 when allowed, otherwise the seconds until a token is free. */
  take(key: string, now = Date.now()): number {
    if (!this.enabled) return 0;
    const ratePerMs = this.perMinute / 60_000;
    const bucket = this.#buckets.get(key) ?? { tokens: this.perMinute, updatedAt: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.updatedAt) * ratePerMs);
    bucket.updatedAt = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerMs / 1000));
  }
}
