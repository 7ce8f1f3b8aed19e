import { useCallback, useEffect, useRef, useState } from "react";
import { messageOf } from "../format.js";

/** The last good value (kept across failures and argument changes), when it came, and the last error. */
export interface Polled<A> {
  readonly value: A | undefined;
  readonly at: Date | undefined;
  /** Why the latest call failed; `undefined` once a call succeeds again. */
  readonly error: string | undefined;
  /** Loads again now (after an action). */
  readonly refresh: () => void;
}

interface Options {
  readonly intervalMs: number;
  /** Values whose change reloads at once (page, search, ...). */
  readonly deps?: ReadonlyArray<unknown>;
  /** Subscribes to change notifications; each one reloads (at most every 300 ms). */
  readonly subscribe?: (onChange: () => void) => () => void;
}

const MIN_GAP_MS = 300;

/**
 * Calls `load` now, every `intervalMs`, on every change notification and
 * whenever `deps` change, with at most one call in flight. A failed call keeps
 * the last value on screen and says why; the next call that succeeds clears it.
 */
export const usePoll = <A>(
  load: () => Promise<A>,
  { intervalMs, deps = [], subscribe }: Options,
): Polled<A> => {
  const [state, setState] = useState<Omit<Polled<A>, "refresh">>({
    value: undefined,
    at: undefined,
    error: undefined,
  });
  const loadRef = useRef(load);
  loadRef.current = load;
  const tickRef = useRef<() => void>(() => {});

  useEffect(() => {
    let alive = true;
    let inFlight = false;
    let again = false;
    let last = 0;
    let pending: ReturnType<typeof setTimeout> | undefined;
    const tick = () => {
      if (!alive) return;
      if (inFlight) {
        again = true;
        return;
      }
      inFlight = true;
      last = Date.now();
      loadRef
        .current()
        .then(
          (value) => alive && setState({ value, at: new Date(), error: undefined }),
          (error: unknown) => alive && setState((s) => ({ ...s, error: messageOf(error) })),
        )
        .finally(() => {
          inFlight = false;
          if (again) {
            again = false;
            tick();
          }
        });
    };
    const soon = () => {
      if (pending !== undefined) return;
      pending = setTimeout(
        () => {
          pending = undefined;
          tick();
        },
        Math.max(0, last + MIN_GAP_MS - Date.now()),
      );
    };
    tickRef.current = tick;
    tick();
    const timer = setInterval(tick, intervalMs);
    const unsubscribe = subscribe?.(soon);
    return () => {
      alive = false;
      clearInterval(timer);
      clearTimeout(pending);
      unsubscribe?.();
    };
    // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what should restart polling.
  }, deps);

  const refresh = useCallback(() => tickRef.current(), []);
  return { ...state, refresh };
};
