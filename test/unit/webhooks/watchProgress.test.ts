import { Effect, Fiber, Option, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import { untilWatchFallsBehind, WatchProgress } from "../../../src/nats/WatchProgress.js";

describe("telling a stalled partition watch from a quiet one", () => {
  it("behavior: a message the watch has not shown by the next check means it is behind", () => {
    const progress = new WatchProgress(10);
    expect(progress.askAfter).toBe(10);
    expect(progress.check(12)).toBe(false);
    // Still not shown one check later.
    expect(progress.check(12)).toBe(true);
  });

  it("behavior: a message shown before the next check, or no message at all, is no stall", () => {
    const progress = new WatchProgress(10);
    expect(progress.check(undefined)).toBe(false);
    expect(progress.check(undefined)).toBe(false);
    expect(progress.check(12)).toBe(false);
    progress.showed(12);
    expect(progress.askAfter).toBe(12);
    // A newer message found now is judged at the following check, not this one.
    expect(progress.check(15)).toBe(false);
    progress.showed(16);
    expect(progress.check(undefined)).toBe(false);
  });

  it("behavior: a watch still replaying older messages is slow, not behind; once it shows nothing it is", () => {
    const progress = new WatchProgress(1_000);
    expect(progress.check(1_001)).toBe(false);
    // Replaying what the bucket held at the start: every message older than where it began.
    progress.showed(10);
    progress.showed(11);
    expect(progress.check(1_001)).toBe(false);
    progress.showed(500);
    expect(progress.check(1_001)).toBe(false);
    // Silent for a whole check with a message still unshown.
    expect(progress.check(1_001)).toBe(true);
  });

  it("behavior: an older revision shown late does not move the watch back", () => {
    const progress = new WatchProgress(20);
    progress.showed(5);
    expect(progress.askAfter).toBe(20);
  });
});

describe("checking a watch now and then", () => {
  /** A stream whose keys hold one message, 12, after where the watch began. */
  const tail = {
    lastSeq: async () => 12,
    firstAfter: async (_filter: string, seq: number) => (seq < 12 ? 12 : undefined),
  };
  const checks = (busy: () => boolean) =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(untilWatchFallsBehind(new WatchProgress(10), tail, ">", 1_000, busy));
      yield* TestClock.adjust("2 seconds");
      return yield* Fiber.poll(fiber);
    });

  it("behavior: a watch that shows nothing for a whole check while a message waits is reported behind", async () => {
    const outcome = await Effect.runPromise(
      checks(() => false).pipe(Effect.provide(TestContext.TestContext)),
    );
    expect(Option.isSome(outcome)).toBe(true);
  });

  it("behavior: checks while the reader is busy with its last message judge nothing", async () => {
    const outcome = await Effect.runPromise(checks(() => true).pipe(Effect.provide(TestContext.TestContext)));
    expect(Option.isNone(outcome)).toBe(true);
  });
});
