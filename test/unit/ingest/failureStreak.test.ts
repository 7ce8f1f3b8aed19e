import { Effect, Logger, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import {
  makeFailureStreak,
  STREAK_REMINDER_MS,
  STREAK_SAID_AFTER,
} from "../../../src/ingest/failureStreak.js";

const run = (said: Array<string>, effect: Effect.Effect<void>) => {
  const logger = Logger.make(({ logLevel, message }) => said.push(`${logLevel.label} ${String(message)}`));
  return Effect.runPromise(
    effect.pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Effect.provide(TestContext.TestContext),
    ),
  );
};

describe("a follower's run of failed steps", () => {
  it("behavior: said once it is a run, again each minute it lasts, and when it ends; a blip says nothing", async () => {
    const said: Array<string> = [];
    await run(
      said,
      Effect.gen(function* () {
        const streak = makeFailureStreak("chain base (8453)");
        // A blip: fewer failures than a run, then a success.
        for (let i = 1; i < STREAK_SAID_AFTER; i++) yield* streak.failed("no answer in time");
        yield* streak.succeeded;
        expect(said).toEqual([]);

        for (let i = 1; i <= STREAK_SAID_AFTER; i++) {
          yield* TestClock.adjust(1_000);
          yield* streak.failed("receipts do not match the block");
        }
        expect(said).toHaveLength(1);
        expect(said[0]).toBe(
          `WARN chain base (8453): ${STREAK_SAID_AFTER} steps in a row have failed over 4 s, the last with: receipts do not match the block; retrying`,
        );
        // Within the minute: nothing more; after it, a reminder.
        yield* TestClock.adjust(STREAK_REMINDER_MS - 1_000);
        yield* streak.failed("receipts do not match the block");
        expect(said).toHaveLength(1);
        yield* TestClock.adjust(1_000);
        yield* streak.failed("receipts do not match the block");
        expect(said).toHaveLength(2);
        yield* streak.succeeded;
        expect(said[2]).toMatch(
          /^INFO chain base \(8453\): reading on again after 7 failed steps over 64 s$/,
        );
        // A new run counts from zero.
        yield* streak.failed("no answer in time");
        expect(said).toHaveLength(3);
      }),
    );
  });
});
