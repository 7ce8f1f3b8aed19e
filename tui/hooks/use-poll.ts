import { useEffect, useState } from "react";

export type Polled<A> =
  | { readonly state: "loading" }
  | { readonly state: "ok"; readonly value: A; readonly at: Date }
  | { readonly state: "error"; readonly message: string; readonly last?: A };

/**
 * Calls `load` now and every `intervalMs`, keeping the last good value when a
 * call fails, so a NATS hiccup shows as a message on screen rather than a crash.
 */
export const usePoll = <A>(
  load: () => Promise<A>,
  intervalMs: number,
  deps: ReadonlyArray<unknown> = [],
): Polled<A> => {
  const [polled, setPolled] = useState<Polled<A>>({ state: "loading" });
  useEffect(() => {
    let alive = true;
    let last: A | undefined;
    const tick = () =>
      load().then(
        (value) => {
          last = value;
          if (alive) setPolled({ state: "ok", value, at: new Date() });
        },
        (error: unknown) => {
          if (!alive) return;
          const message = error instanceof Error ? error.message : String(error);
          setPolled(last === undefined ? { state: "error", message } : { state: "error", message, last });
        },
      );
    void tick();
    const timer = setInterval(tick, intervalMs);
    return () => {
      alive = false;
      clearInterval(timer);
    };
    // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what should restart polling.
  }, deps);
  return polled;
};
