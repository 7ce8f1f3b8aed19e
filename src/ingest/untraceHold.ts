/**
 * How long a follower waits, for one block whose trace was refused for want of state, on endpoints
 * that did not say whether they keep that state (an archive that is down, one that always fails)
 * before reading on without them: a block's internal transfers are worth a wait, not a chain that
 * stops for good. Each refused block starts a wait of its own.
 */
export const makeUntraceHold = (holdMs: number) => {
  let held: { readonly block: number; readonly since: number } | undefined;
  return {
    /** Whether the wait for `block` is over at `now` (ms); the first call for a block starts it. */
    over: (block: number, now: number): boolean => {
      if (held?.block !== block) held = { block, since: now };
      return now - held.since >= holdMs;
    },
  };
};
