/** Blocks dropped from a chain's list between two sweeps of their events. */
export const SWEEP_EVERY_DROPS = 16;

/**
 * Removes the events of blocks dropped from a chain's record list, off the
 * notifier's path: once `every` blocks were dropped, one purge of every
 * `e.<chain>.` message below the lowest sequence a listed block still uses,
 * in the background. A purge of one block's keys by subject cost the server
 * about 2 ms of CPU, and the notifier waited for it before acknowledging each
 * block; a purge by sequence costs a fraction of that, and one covers many
 * blocks.
 *
 * Nothing still wanted is below the bound: listed blocks' parts are at or
 * above it, and a writer whose parts are below it wrote them before reading
 * the list this bound came from, so its own list write fails on the revision
 * (and it writes them again). A sweep that fails, or never runs because the
 * process stopped, is covered by the next one, from any process.
 */
export const eventsSweep = (
  purgeBelow: (chainId: number, below: number) => Promise<void>,
  every = SWEEP_EVERY_DROPS,
) => {
  const drops = new Map<number, number>();
  let running: Promise<void> = Promise.resolve();
  return {
    /** `count` blocks were dropped from the chain's list, whose listed blocks' parts are all at or above `below`. */
    dropped: (chainId: number, count: number, below: number) => {
      const since = (drops.get(chainId) ?? 0) + count;
      if (since < every) {
        drops.set(chainId, since);
        return;
      }
      drops.delete(chainId);
      // One at a time; a failure is left to the next sweep, whose range covers this one's.
      running = running.then(() => purgeBelow(chainId, below)).catch(() => undefined);
    },
    /** Resolves once every sweep started so far has ended. */
    settled: (): Promise<void> => running,
  } as const;
};
