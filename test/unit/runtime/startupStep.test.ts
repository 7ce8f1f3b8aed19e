import { Deferred, Effect, Fiber, Logger, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import { startupStep } from "../../../src/runtime/startupStep.js";

/** Runs `body` with a test clock, collecting every log line as "LEVEL message". */
const withLogs = <A>(body: (lines: Array<string>) => Effect.Effect<A>) => {
  const lines: Array<string> = [];
  const logger = Logger.make(({ logLevel, message }) => {
    lines.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`);
  });
  return Effect.runPromise(
    body(lines).pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Effect.provide(TestContext.TestContext),
    ),
  );
};

describe("start-up steps that take long", () => {
  it("behavior: a step still running is named in a warning every 20 s, with how long it has run", async () => {
    await withLogs((lines) =>
      Effect.gen(function* () {
        const done = yield* Deferred.make<string>();
        const step = yield* Effect.fork(Deferred.await(done).pipe(startupStep("reading the webhooks")));
        yield* TestClock.adjust("19 seconds");
        expect(lines).toEqual([]);
        yield* TestClock.adjust("1 second");
        expect(lines).toEqual(["WARN start-up: still reading the webhooks after 20 s"]);
        yield* TestClock.adjust("20 seconds");
        expect(lines.at(-1)).toBe("WARN start-up: still reading the webhooks after 40 s");
        yield* Deferred.succeed(done, "read");
        expect(yield* Fiber.join(step)).toBe("read");
        // Finished: no more reminders.
        yield* TestClock.adjust("1 minute");
        expect(lines).toHaveLength(2);
      }),
    );
  });

  it("behavior: a quick step says nothing, and its failure is passed on unchanged", async () => {
    await withLogs((lines) =>
      Effect.gen(function* () {
        expect(yield* Effect.succeed(7).pipe(startupStep("opening buckets"))).toBe(7);
        const failed = yield* Effect.flip(Effect.fail("no bucket").pipe(startupStep("opening buckets")));
        expect(failed).toBe("no bucket");
        yield* TestClock.adjust("5 minutes");
        expect(lines).toEqual([]);
      }),
    );
  });
});
