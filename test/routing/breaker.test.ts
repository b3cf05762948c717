import { describe, expect, test } from "bun:test";
import { CircuitBreaker } from "../../src/routing/breaker";
import { breakerSchema, retrySchema } from "../../src/routing/model";
import { backoffMs, outcomeOfStatus, retryAfterMs } from "../../src/routing/retry-policy";

/** A breaker on a clock the test moves. */
function breakerAt(policy: Partial<ReturnType<typeof breakerSchema.parse>>) {
  const clock = { now: 1_000_000 };
  return { breaker: new CircuitBreaker(breakerSchema.parse(policy), () => clock.now), clock };
}

describe("circuit breaker", () => {
  test("opens after N consecutive failures, lets one probe through after the cooldown, closes on its success", () => {
    const { breaker, clock } = breakerAt({ consecutive_failures: 3, cooldown_ms: 1_000 });
    for (let i = 0; i < 2; i++) {
      expect(breaker.tryAcquire()).toBe(true);
      breaker.failure();
    }
    breaker.success(); // a success in between resets the count
    for (let i = 0; i < 3; i++) {
      expect(breaker.tryAcquire()).toBe(true);
      breaker.failure();
    }
    expect(breaker.state).toBe("open");
    expect(breaker.tryAcquire()).toBe(false);
    expect(breaker.retryInMs).toBe(1_000);
    clock.now += 999;
    expect(breaker.tryAcquire()).toBe(false);
    clock.now += 1;
    expect(breaker.state).toBe("half_open");
    expect(breaker.tryAcquire()).toBe(true); // the probe
    expect(breaker.tryAcquire()).toBe(false); // only one at a time
    breaker.success();
    expect(breaker.state).toBe("closed");
    expect(breaker.tryAcquire()).toBe(true);
  });

  test("a failed probe opens the circuit for another cooldown; an abandoned probe lets the next request probe", () => {
    const { breaker, clock } = breakerAt({ consecutive_failures: 1, cooldown_ms: 500 });
    breaker.tryAcquire();
    breaker.failure();
    clock.now += 500;
    expect(breaker.tryAcquire()).toBe(true);
    breaker.failure();
    expect(breaker.state).toBe("open");
    expect(breaker.retryInMs).toBe(500);
    clock.now += 500;
    expect(breaker.tryAcquire()).toBe(true);
    breaker.release();
    expect(breaker.tryAcquire()).toBe(true);
  });

  test("opens on the failure rate within the window once it holds min_requests, and forgets old buckets", () => {
    const { breaker, clock } = breakerAt({ consecutive_failures: 1_000, failure_rate: 0.5, min_requests: 10, window_ms: 10_000 });
    // 4 failures among 9 attempts: under both the rate and the minimum.
    for (let i = 0; i < 9; i++) {
      breaker.tryAcquire();
      if (i % 2 === 0 && i < 8) breaker.failure();
      else breaker.success();
    }
    expect(breaker.state).toBe("closed");
    breaker.failure(); // 5 of 10
    expect(breaker.state).toBe("open");

    const fresh = breakerAt({ consecutive_failures: 1_000, failure_rate: 0.5, min_requests: 4, window_ms: 10_000 });
    fresh.breaker.failure();
    fresh.breaker.failure();
    fresh.breaker.success();
    fresh.clock.now += 20_000; // the window has moved past them
    fresh.breaker.success();
    fresh.breaker.failure();
    expect(fresh.breaker.state).toBe("closed");
  });
});

describe("retry policy", () => {
  test("which statuses are retried", () => {
    for (const status of [429]) expect(outcomeOfStatus(status)).toBe("rate_limited");
    for (const status of [408, 500, 502, 503, 504, 529]) expect(outcomeOfStatus(status)).toBe("server_error");
    for (const status of [400, 401, 403, 404, 409, 413, 422]) expect(outcomeOfStatus(status)).toBe("client_error");
    expect(outcomeOfStatus(200)).toBe("ok");
  });

  test("Retry-After in seconds, as a date, and OpenAI's retry-after-ms (which wins)", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "2" }), now)).toBe(2_000);
    expect(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now)).toBe(5_000);
    expect(retryAfterMs(new Headers({ "retry-after": "1", "retry-after-ms": "250" }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  test("backoff doubles with jitter between half and all of it, is capped, and yields to a longer Retry-After", () => {
    const policy = retrySchema.parse({ backoff_ms: 100, max_backoff_ms: 300 });
    expect(backoffMs(policy, 1, undefined, () => 0)).toBe(50);
    expect(backoffMs(policy, 1, undefined, () => 1)).toBe(100);
    expect(backoffMs(policy, 2, undefined, () => 1)).toBe(200);
    expect(backoffMs(policy, 5, undefined, () => 1)).toBe(300);
    expect(backoffMs(policy, 1, 1_000, () => 1)).toBe(1_000);
    expect(backoffMs(policy, 1, 10, () => 1)).toBe(100);
  });
});
