/**
 * How long a follower waits, once its nodes refuse a trace for want of state, on endpoints that do
 * not say whether they keep it (an archive that is down, one that always fails) or say they keep
 * it while the trace is still refused, before reading on without traces: a block's internal
 * transfers are worth a wait, not a chain that stops.
 *
 * The wait is per episode, not per block: once over, later refusals read on at once (at the
 * window's edge the next block is often refused a moment later, and waiting again each time would
 * keep the follower there). An episode ends when no refusal came for `holdMs`. Within one, a new
 * reason (an archive back, saying it keeps the state, after it said nothing) waits anew, but the
 * episode as a whole waits twice `holdMs` at most, so an endpoint flapping between the two cannot
 * hold the chain.
 */
export const makeUntraceHold = (holdMs: number) => {
  let episode:
    | { readonly since: number; readonly reason: string; readonly reasonSince: number; last: number }
    | undefined;
  return {
    /** Whether the wait for `reason` is over at `now` (ms); a refusal after a quiet `holdMs` starts an episode. */
    over: (reason: string, now: number): boolean => {
      if (episode === undefined || now - episode.last > holdMs)
        episode = { since: now, reason, reasonSince: now, last: now };
      else if (episode.reason !== reason) episode = { ...episode, reason, reasonSince: now };
      episode.last = now;
      return now - episode.reasonSince >= holdMs || now - episode.since >= 2 * holdMs;
    },
    /** Every endpoint answered plainly: the episode ends, and the next one waits anew. */
    reset: (): void => {
      episode = undefined;
    },
  };
};
