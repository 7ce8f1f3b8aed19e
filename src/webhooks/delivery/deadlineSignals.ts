import { setMaxListeners } from "node:events";

/**
 * Abort signals for the attempts' whole-exchange deadline, one shared by
 * every attempt started within the same slice of time. A signal of its own per
 * attempt (AbortSignal.timeout: a timer, a signal, its listener bookkeeping)
 * was a fifth of the CPU of sending one delivery. An attempt started within a
 * slice is aborted between `ms` and `ms` plus one slice after it started.
 */
export const deadlineSignals = (
  ms: number,
  /** A tenth of the deadline, at most a second: a 15 s deadline may run to 16 s. */
  sliceMs: number = Math.min(1_000, Math.max(1, Math.floor(ms / 10))),
  now: () => number = () => performance.now(),
  timeout: (ms: number) => AbortSignal = (ms) => AbortSignal.timeout(ms),
): (() => AbortSignal) => {
  let signal: AbortSignal | undefined;
  let sliceEndsAt = 0;
  return () => {
    const at = now();
    if (signal === undefined || at >= sliceEndsAt) {
      // Fires one slice after `ms` from the slice's first attempt, so its last one still gets `ms`.
      signal = timeout(ms + sliceMs);
      // Every attempt in flight within the slice listens to it: not a leak.
      setMaxListeners(0, signal);
      sliceEndsAt = at + sliceMs;
    }
    return signal;
  };
};
