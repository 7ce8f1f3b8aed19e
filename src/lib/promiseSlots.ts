/**
 * At most `size` tasks run at once; the rest wait in the order they asked. For Promise code
 * whose work is worth queueing rather than piling onto a shared resource (a node's rate).
 */
export const makePromiseSlots = (size: number) => {
  let running = 0;
  const waiting: Array<() => void> = [];
  // A finishing task hands its slot to the first waiter, so no newcomer slips in between.
  const release = () => {
    const next = waiting.shift();
    if (next === undefined) running--;
    else next();
  };
  const run = async <A>(task: () => Promise<A>): Promise<A> => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await task();
    } finally {
      release();
    }
  };
  /** Tasks waiting for a slot. */
  return Object.assign(run, { waiting: () => waiting.length });
};
