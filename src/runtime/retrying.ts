import { type Duration, Effect, Schedule } from "effect";
import { reasonOf } from "../lib/errorReason.js";

/** Between attempts: from 0.2 s, doubling, never longer than `cap`; it never gives up. */
export const backoffUpTo = (cap: Duration.DurationInput) =>
  Schedule.union(Schedule.exponential("200 millis"), Schedule.spaced(cap));

/**
 * `call`, tried again after each failure, saying so in the log, until it succeeds (on
 * `backoffUpTo(cap)`). For calls that start-up or readiness wait on: a JetStream call timing out
 * while a leader is elected must delay them, never end the process.
 */
export const retrying = <A>(
  what: string,
  call: () => Promise<A>,
  cap: Duration.DurationInput = "10 seconds",
) =>
  Effect.tryPromise(call).pipe(
    Effect.tapError((error) => Effect.logWarning(`${what} failed (${reasonOf(error)}); retrying`)),
    Effect.retry(backoffUpTo(cap)),
    Effect.orDie,
  );
