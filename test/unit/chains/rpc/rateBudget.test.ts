import { Clock, Effect, Fiber, Random, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import { RateBudget } from "../../../../src/chains/rpc/RateBudget.js";

const run = <A>(effect: Effect.Effect<A>) =>
  Effect.runPromise(
    effect.pipe(Effect.withRandom(Random.make("seed")), Effect.provide(TestContext.TestContext)),
  );

/** When each of `costs` was let through, in ms of the test clock. */
const sendTimes = (budget: RateBudget, costs: ReadonlyArray<number>, spanMs: number) =>
  Effect.gen(function* () {
    const times: Array<number> = [];
    const fiber = yield* Effect.fork(
      Effect.forEach(costs, (cost) =>
        Effect.zipRight(
          budget.take(cost),
          Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.sync(() => times.push(t))),
        ),
      ),
    );
    for (let t = 0; t < spanMs; t += 10) yield* TestClock.adjust("10 millis");
    yield* Fiber.interrupt(fiber);
    return times;
  });

describe("RateBudget", () => {
  it("behavior: with no configured rate nothing waits", async () => {
    const times = await run(sendTimes(new RateBudget(undefined), Array(50).fill(1), 10));
    expect(times).toHaveLength(50);
    expect(new Set(times)).toEqual(new Set([0]));
  });

  it("behavior: 10 requests a second, each batch element counting, after a first second's burst", async () => {
    const times = await run(sendTimes(new RateBudget(10), Array(40).fill(1), 2_000));
    // A full bucket of 10 at once, then no more than 10 in any one second (providers count each
    // second: the bucket's refill within the first would have made it 19).
    expect(times.filter((t) => t === 0).length).toBe(10);
    for (const t of times)
      expect(times.filter((u) => u > t - 1_000 && u <= t).length).toBeLessThanOrEqual(10);
    expect(times.filter((t) => t < 2_000).length).toBeGreaterThanOrEqual(19);
    const batches = await run(sendTimes(new RateBudget(10), Array(10).fill(5), 2_000));
    // Batches of 5 elements: two a second after the first second.
    expect(batches.filter((t) => t < 2_000).length).toBeLessThanOrEqual(6);
  });

  it("behavior: a refusal pauses every request for at least what the provider asked", async () => {
    const result = await run(
      Effect.gen(function* () {
        const budget = new RateBudget(undefined);
        yield* budget.take(1);
        const pause = yield* budget.refused(5_000);
        const times: Array<number> = [];
        const fiber = yield* Effect.fork(
          Effect.zipRight(
            budget.take(1),
            Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.sync(() => times.push(t))),
          ),
        );
        yield* TestClock.adjust("4999 millis");
        const early = times.length;
        yield* TestClock.adjust("2 seconds");
        yield* Fiber.join(fiber);
        return { pause, early, times };
      }),
    );
    expect(result.pause).toBeGreaterThanOrEqual(5_000);
    expect(result.pause).toBeLessThanOrEqual(6_050);
    expect(result.early).toBe(0);
    expect(result.times[0]).toBeGreaterThanOrEqual(5_000);
  });

  it("behavior: a refusal learns 90 % of the rate the endpoint was answering at, which grows back while answered, never past the setting", async () => {
    const result = await run(
      Effect.gen(function* () {
        const budget = new RateBudget(1_000);
        // 120 answers a second for a second, then a refusal.
        for (let slot = 0; slot < 10; slot++) {
          yield* budget.take(12);
          budget.answered(12, yield* Clock.currentTimeMillis);
          yield* TestClock.adjust("100 millis");
        }
        yield* budget.refused(undefined);
        const learned = budget.rate!;
        const now = yield* Clock.currentTimeMillis;
        for (let i = 0; i < 100; i++) budget.answered(1, now + 5_000);
        const grown = budget.rate!;
        for (let i = 0; i < 100_000; i++) budget.answered(1, now + 5_000);
        return { learned, grown, final: budget.rate };
      }),
    );
    expect(result.learned).toBeGreaterThan(100);
    expect(result.learned).toBeLessThan(120);
    expect(result.grown).toBeGreaterThan(result.learned);
    expect(result.final).toBe(1_000);
  });

  it("behavior: with too few answers to measure, a refusal cuts what was sent by 30 %", async () => {
    const rate = await run(
      Effect.gen(function* () {
        const budget = new RateBudget(undefined);
        for (let i = 0; i < 40; i++) yield* budget.take(1);
        yield* budget.refused(undefined);
        return budget.rate;
      }),
    );
    expect(rate).toBeCloseTo(28, 0);
  });

  it("behavior: refusals in a row with no wait of their own back off exponentially", async () => {
    const pauses = await run(
      Effect.gen(function* () {
        const budget = new RateBudget(undefined);
        const out: Array<number> = [];
        for (let i = 0; i < 8; i++) {
          const pause = yield* budget.refused(undefined);
          out.push(pause);
          yield* TestClock.adjust(pause + 1);
        }
        return out;
      }),
    );
    expect(pauses[0]).toBeLessThanOrEqual(500);
    expect(pauses[4]).toBeGreaterThanOrEqual(4_000);
    expect(Math.max(...pauses)).toBeLessThanOrEqual(30_000);
  });

  it("behavior: refusals arriving during a pause (a burst sent before it) are one refusal, not a collapse", async () => {
    const result = await run(
      Effect.gen(function* () {
        const budget = new RateBudget(undefined);
        for (let i = 0; i < 100; i++) yield* budget.take(1);
        const first = yield* budget.refused(undefined);
        for (let i = 0; i < 16; i++) yield* budget.refused(undefined);
        const longer = yield* budget.refused(5_000);
        return { first, rate: budget.rate, longer };
      }),
    );
    expect(result.rate).toBeCloseTo(70, 0);
    expect(result.first).toBeLessThanOrEqual(500);
    // A later refusal's own Retry-After still lengthens the pause.
    expect(result.longer).toBe(5_000);
  });
});
