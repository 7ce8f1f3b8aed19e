/**
 * Keys that requests hold while they answer, and work that waits until no request holds its key
 * (or `maxWaitMs` has passed, so a request that never releases cannot stop the work for good).
 * A release takes effect `graceMs` later: the answer still has to leave through NATS and the
 * gateway, which may share this process's one thread with the work that was waiting.
 */
export const makeAnswerHolds = (options: { readonly maxWaitMs: number; readonly graceMs: number }) => {
  const held = new Map<string, number>();
  const waiting = new Map<string, Array<() => void>>();

  const drop = (key: string) => {
    const left = (held.get(key) ?? 1) - 1;
    if (left > 0) return void held.set(key, left);
    held.delete(key);
    for (const wake of waiting.get(key) ?? []) wake();
    waiting.delete(key);
  };

  return {
    /** Holds every key until the returned release is called (once; later calls do nothing). */
    take: (keys: ReadonlyArray<string>): (() => void) => {
      for (const key of keys) held.set(key, (held.get(key) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (options.graceMs <= 0) {
          for (const key of keys) drop(key);
          return;
        }
        const timer = setTimeout(() => {
          for (const key of keys) drop(key);
        }, options.graceMs);
        timer.unref?.();
      };
    },
    /** Resolves once no request holds `key`, or after `maxWaitMs`. */
    free: (key: string): Promise<void> => {
      if (!held.has(key)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.maxWaitMs);
        timer.unref?.();
        waiting.set(key, [
          ...(waiting.get(key) ?? []),
          () => {
            clearTimeout(timer);
            resolve();
          },
        ]);
      });
    },
  };
};
