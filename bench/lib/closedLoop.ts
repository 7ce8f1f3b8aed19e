/** One unit of work as a closed loop ran it: when it started and ended (performance.now), and how it went. */
export interface Sample<A> {
  readonly startedAt: number;
  readonly endedAt: number;
  readonly ok: boolean;
  /** What the work resolved with, when it did. */
  readonly value?: A;
  /** The first line of what it rejected with, when it did. */
  readonly error?: string;
}

/**
 * `concurrency` workers, each starting `work` again as soon as its last one settled, until `count`
 * units have started or `untilMs` (performance.now) has passed: the load a pool of clients puts on a
 * service, never more in flight than there are clients.
 */
export const closedLoop = async <A>(
  work: (worker: number) => Promise<A>,
  options: { readonly concurrency: number; readonly count?: number; readonly untilMs?: number },
): Promise<ReadonlyArray<Sample<A>>> => {
  const samples: Array<Sample<A>> = [];
  let started = 0;
  const more = () =>
    (options.count === undefined || started < options.count) &&
    (options.untilMs === undefined || performance.now() < options.untilMs);
  const worker = async (index: number) => {
    while (more()) {
      started++;
      const startedAt = performance.now();
      try {
        const value = await work(index);
        samples.push({ startedAt, endedAt: performance.now(), ok: true, value });
      } catch (error) {
        const message = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
        samples.push({ startedAt, endedAt: performance.now(), ok: false, error: message });
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, i) => worker(i)));
  return samples.sort((a, b) => a.startedAt - b.startedAt);
};

/** Wall time from the first start to the last end, in ms. */
export const spanMs = (samples: ReadonlyArray<Sample<unknown>>): number =>
  samples.length === 0
    ? 0
    : Math.max(...samples.map((s) => s.endedAt)) - Math.min(...samples.map((s) => s.startedAt));
