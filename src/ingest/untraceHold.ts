/**
 * How long a follower waits, once its nodes refuse a trace for want of state, on endpoints that do
 * not say whether they keep it (an archive that is down, one that always fails) or say they keep
 * it while the trace is still refused, before reading on without traces: a block's internal
 * transfers are worth a wait, not a chain that stops. The wait is per episode, not per block: once
 * over, later refusals for the same reason read on at once (at the window's edge the next block is
 * often refused a moment later, and waiting again each time would keep the follower there). An
 * episode ends when every endpoint answers plainly again, and one for another reason (an archive
 * back, saying it keeps the state, after one that said nothing) waits anew.
 */
export const makeUntraceHold = (holdMs: number) => {
  let episode: { readonly reason: string; readonly since: number } | undefined;
  return {
    /** Whether the wait for `reason` is over at `now` (ms); the first call of an episode starts it. */
    over: (reason: string, now: number): boolean => {
      if (episode?.reason !== reason) episode = { reason, since: now };
      return now - episode.since >= holdMs;
    },
    /** Every endpoint answered plainly: the episode ends, and the next one waits anew. */
    reset: (): void => {
      episode = undefined;
    },
  };
};
