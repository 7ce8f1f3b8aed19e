import type { Sample } from "./closedLoop.js";

/**
 * Starts `work` every `everyMs` until `untilMs` (performance.now), whether or not earlier ones have
 * settled: independent clients arriving at a steady rate, so a slow answer delays no one else's
 * request and a hung dependency shows in every one of them.
 */
export const openLoop = async <A>(
  work: () => Promise<A>,
  options: { readonly everyMs: number; readonly untilMs: number },
): Promise<ReadonlyArray<Sample<A>>> => {
  const running: Array<Promise<Sample<A>>> = [];
  const one = async (): Promise<Sample<A>> => {
    const startedAt = performance.now();
    try {
      const value = await work();
      return { startedAt, endedAt: performance.now(), ok: true, value };
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
      return { startedAt, endedAt: performance.now(), ok: false, error: message };
    }
  };
  for (let next = performance.now(); next < options.untilMs; next += options.everyMs) {
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    running.push(one());
  }
  return Promise.all(running);
};
