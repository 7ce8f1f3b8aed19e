import { Clock, Effect } from "effect";

/** Failed steps in a row before the run is said in the log: about 6 s of the follower's backoff. */
export const STREAK_SAID_AFTER = 5;
/** How often a run that goes on is said again. */
export const STREAK_REMINDER_MS = 60_000;

/**
 * A run of a follower's failed steps, said in the log: once it reaches STREAK_SAID_AFTER failures
 * in a row, again every STREAK_REMINDER_MS while it lasts, and when a step succeeds again. A
 * failing endpoint says so itself, but a step can fail with every endpoint answering (receipts
 * that do not match their block, a reorg whose ancestor no node names, a publish refused for
 * another reason than a full store): without this, a chain that stopped moving would say so only
 * through `/healthz` (`rpc_errors`, `last_error`).
 */
export const makeFailureStreak = (label: string) => {
  let failures = 0;
  let since = 0;
  let saidAt: number | undefined;
  return {
    failed: (message: string) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis;
        if (failures === 0) since = now;
        failures++;
        const due = saidAt === undefined ? failures >= STREAK_SAID_AFTER : now - saidAt >= STREAK_REMINDER_MS;
        if (!due) return;
        saidAt = now;
        yield* Effect.logWarning(
          `${label}: ${failures} steps in a row have failed over ${Math.round((now - since) / 1000)} s, the last with: ${message}; retrying`,
        );
      }),
    succeeded: Effect.gen(function* () {
      if (saidAt !== undefined) {
        const now = yield* Clock.currentTimeMillis;
        yield* Effect.logInfo(
          `${label}: reading on again after ${failures} failed steps over ${Math.round((now - since) / 1000)} s`,
        );
      }
      failures = 0;
      saidAt = undefined;
    }),
  };
};
