/**
 * How long a follower waits, once its nodes refuse a trace for want of state, on each endpoint that
 * does not say whether it keeps that state (an archive that is down, one that always fails), and
 * on endpoints that say they keep it while the trace is still refused, before reading on without
 * traces: a block's internal transfers are worth a wait, not a chain that stops.
 *
 * Each wait (one per endpoint, one for "kept") runs from the first of a run of refusals, not per
 * block: once over, later refusals read on at once (at the window's edge the next block is often
 * refused a moment later, and waiting again each time would keep the follower there). It ends when
 * its endpoint answers plainly, or when no refusal came for twice `holdMs` (traces went through
 * meanwhile, and a new outage gets its own wait). An endpoint that was slow once is waited on, not
 * given up at once, however long another endpoint has been silent.
 */
export const makeUntraceHold = (holdMs: number) => {
  const waits = new Map<string, { readonly since: number; readonly last: number }>();
  return {
    /** Whether the wait on `key` is over at `now` (ms); the first refusal of a run starts it. */
    over: (key: string, now: number): boolean => {
      const wait = waits.get(key);
      const since = wait === undefined || now - wait.last > 2 * holdMs ? now : wait.since;
      waits.set(key, { since, last: now });
      return now - since >= holdMs;
    },
    /** `key` answered plainly: its next wait starts anew. */
    clear: (key: string): void => {
      waits.delete(key);
    },
  };
};
