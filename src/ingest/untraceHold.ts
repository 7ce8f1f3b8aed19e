/**
 * How long a follower waits, once its nodes refuse a trace for want of state, on each endpoint that
 * does not say whether it keeps that state (an archive that is down, one that always fails), and
 * on endpoints that say they keep it while the trace is still refused, before reading on without
 * traces: a block's internal transfers are worth a wait, not a chain that stops.
 *
 * Each wait (one per endpoint, one for those that keep the state) runs from the first of a run of
 * refusals that meet it, not per block: once over, later refusals read on at once (at the window's
 * edge the next block is often refused a moment later, and waiting again each time would keep the
 * follower there). A run ends after `quietMs` without the wait being met. That must be longer than
 * the most a follower's attempts can lie apart: a down archive is paused for up to 60 s after each
 * failure, a trace started in the last 30 s of a pause (a call's budget) waits it out and fails
 * with the archive's error, not the full node's refusal, and so the wait is met with gaps of up to
 * about a minute. An answer in between does not end a run either, so an endpoint that alternates
 * between failing and answering is given up once its run is `holdMs` long.
 */
export const makeUntraceHold = (holdMs: number, quietMs: number) => {
  const waits = new Map<unknown, { readonly since: number; readonly last: number }>();
  return {
    /** Whether the wait on `key` is over at `now` (ms); a refusal after a quiet `quietMs` starts a run. */
    over: (key: unknown, now: number): boolean => {
      const wait = waits.get(key);
      const since = wait === undefined || now - wait.last > quietMs ? now : wait.since;
      waits.set(key, { since, last: now });
      return now - since >= holdMs;
    },
  };
};
