import { Clock, type Duration, Effect, Fiber } from "effect";

/** How long a start-up step may take before the log says which one is still running. */
export const STARTUP_STEP_WARN_AFTER: Duration.DurationInput = "20 seconds";

/**
 * Runs one step of start-up, saying in the log every `every` that it is still running, and for how
 * long, until it ends. A process that waits on something (a bucket's first read, a consumer, the
 * chain) then says what it waits on: with the default log level a silent process that never
 * answers /healthz gives an operator nothing to go on.
 */
export const startupStep =
  (what: string, every: Duration.DurationInput = STARTUP_STEP_WARN_AFTER) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.gen(function* () {
      const began = yield* Clock.currentTimeMillis;
      const remind = Effect.gen(function* () {
        const seconds = Math.round(((yield* Clock.currentTimeMillis) - began) / 1000);
        yield* Effect.logWarning(`start-up: still ${what} after ${seconds} s`);
      }).pipe(Effect.delay(every), Effect.forever);
      // A daemon, so that it never outlives the step as a child of a scope the step hands back.
      const reminder = yield* Effect.forkDaemon(remind);
      return yield* self.pipe(Effect.ensuring(Fiber.interrupt(reminder)));
    });
