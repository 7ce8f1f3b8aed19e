import { describe, expect, it } from "vitest";
import { RateLimiter } from "../../../src/api/RateLimiter.js";

describe("RateLimiter", () => {
  it("default: admits a burst, then refills at the rate", () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(() => now);
    const limit = { rate: 2, burst: 3 };
    expect([1, 2, 3].map(() => limiter.admit("k", limit).admitted)).toEqual([true, true, true]);
    expect(limiter.admit("k", limit)).toEqual({ admitted: false, retryAfterSeconds: 1 });
    now += 500;
    expect(limiter.admit("k", limit).admitted).toBe(true);
    expect(limiter.admit("k", limit).admitted).toBe(false);
  });

  it("behavior: keys have separate buckets", () => {
    const limiter = new RateLimiter(() => 0);
    const limit = { rate: 1, burst: 1 };
    expect(limiter.admit("a", limit).admitted).toBe(true);
    expect(limiter.admit("b", limit).admitted).toBe(true);
    expect(limiter.admit("a", limit).admitted).toBe(false);
  });

  it("behavior: Retry-After covers the wait for a whole token at slow rates", () => {
    const limiter = new RateLimiter(() => 0);
    const limit = { rate: 0.1, burst: 1 };
    limiter.admit("k", limit);
    expect(limiter.admit("k", limit)).toEqual({ admitted: false, retryAfterSeconds: 10 });
  });

  it("behavior: an idle key's bucket is full again (and forgotten) after ten minutes", () => {
    let now = 0;
    const limiter = new RateLimiter(() => now);
    const limit = { rate: 1, burst: 2 };
    limiter.admit("k", limit);
    limiter.admit("k", limit);
    now += 11 * 60_000;
    expect(limiter.admit("k", limit).admitted).toBe(true);
    expect(limiter.admit("k", limit).admitted).toBe(true);
  });
});

describe("RateLimiter bounds", () => {
  it("bytes: a million distinct keys keep at most maxBuckets buckets", () => {
    const limiter = new RateLimiter(() => 0, 1_000);
    for (let i = 0; i < 1_000_000; i++) limiter.admit(`key${i}`, { rate: 1, burst: 1 });
    expect(limiter.size).toBe(1_000);
  });

  it("behavior: the least recently used key is forgotten first; a busy key keeps its bucket", () => {
    const limiter = new RateLimiter(() => 0, 2);
    const limit = { rate: 1, burst: 1 };
    expect(limiter.admit("busy", limit).admitted).toBe(true);
    limiter.admit("quiet", limit);
    expect(limiter.admit("busy", limit).admitted).toBe(false);
    limiter.admit("third", limit);
    // "quiet" was forgotten, not "busy": busy is still empty, quiet starts full again.
    expect(limiter.admit("busy", limit).admitted).toBe(false);
    expect(limiter.admit("quiet", limit).admitted).toBe(true);
  });
});
