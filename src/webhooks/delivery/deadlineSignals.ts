import { setMaxListeners } from "node:events";

/**
 * Attempts that share one signal at most. Node's EventTarget walks a signal's
 * listeners on every add and remove, so one signal for all the attempts of a
 * second would cost in the square of those in flight (a receiver gone dark
 * behind thousands of webhooks).
 */
export const ATTEMPTS_PER_SIGNAL = 64;

/**
 * Abort signals for the attempts' whole-exchange deadline, one shared by
 * the attempts started within the same slice of time (up to
 * ATTEMPTS_PER_SIGNAL of them). A signal of its own per attempt
 * (AbortSignal.timeout: a timer, a signal, its listener bookkeeping) was a
 * fifth of the CPU of sending one delivery. An attempt started within a slice
 * is aborted between `ms` and `ms` plus one slice after it started.
 */
export const deadlineSignals = (
  ms: number,
  /** A tenth of the deadline, at most a second: a 15 s deadline may run to 16 s. */
  sliceMs: number = Math.min(1_000, Math.max(1, Math.floor(ms / 10))),
  now: () => number = () => performance.now(),
  timeout: (ms: number) => AbortSignal = (ms) => AbortSignal.timeout(ms),
  perSignal: number = ATTEMPTS_PER_SIGNAL,
): (() => AbortSignal) => {
  let signal: AbortSignal | undefined;
  let sliceEndsAt = 0;
  let handedOut = 0;
  return () => {
    const at = now();
    if (signal === undefined || at >= sliceEndsAt || handedOut >= perSignal) {
      // Fires one slice after `ms` from its first attempt, so its last one still gets `ms`.
      signal = timeout(ms + sliceMs);
      // Every attempt in flight it was handed to listens to it: not a leak.
      setMaxListeners(0, signal);
      sliceEndsAt = at + sliceMs;
      handedOut = 0;
    }
    handedOut++;
    return signal;
  };
};
