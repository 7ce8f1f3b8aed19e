import type { RawCall } from "../../src/chains/multicall3.js";
import { chainReadDeadline } from "../../src/chains/readEachChain.js";
import type { ChainRpc } from "../../src/chains/rpc/ChainRpc.js";
import { within } from "../../src/lib/within.js";
import { closedLoop, type Sample, spanMs } from "./closedLoop.js";
import { readBalances } from "./walletBalanceReads.js";

/** The per-chain budget of a balances request at the service's default 10 s request timeout. */
export const READ_BUDGET_MS = chainReadDeadline(10_000);

export interface BalancesLoad {
  readonly ms: number;
  readonly samples: ReadonlyArray<Sample<string>>;
  readonly failed: number;
  /** The first failure's message, if any read failed. */
  readonly firstError: string | undefined;
  /**
   * Resolves once every read the layer was asked for has settled, cut off or not, with how long
   * each took: what the budget given to `forRequests` bounds, if it holds.
   */
  readonly settled: Promise<ReadonlyArray<{ readonly startedAt: number; readonly ms: number }>>;
}

/**
 * `read`, or a rejection once the budget has passed without its answer, as the balances handler
 * gives up on a chain (readEachChain.ts): the client gets its answer without that chain then,
 * whatever the read itself goes on doing.
 */
const withinBudget = <A>(read: Promise<A>): Promise<A> =>
  within(read, READ_BUDGET_MS, () => new Error(`no answer within the ${READ_BUDGET_MS / 1000} s budget`));

/**
 * `reads` balances-style reads of `calls` at `block`, `concurrency` at a time, each through the
 * chain's request path as the balances handler takes it (the handle `forRequests` gives, and the
 * handler's own 7 s cut-off): what concurrent cold balances requests ask of one chain's node.
 */
export const balancesLoad = async (
  rpc: ChainRpc,
  calls: ReadonlyArray<RawCall>,
  block: number,
  options: { readonly reads?: number; readonly untilMs?: number; readonly concurrency: number },
): Promise<BalancesLoad> => {
  const requests = rpc.forRequests(READ_BUDGET_MS);
  const underlying: Array<Promise<{ startedAt: number; ms: number }>> = [];
  const read = () => {
    const startedAt = performance.now();
    const reading = readBalances(requests, calls, block);
    const settle = () => ({ startedAt, ms: performance.now() - startedAt });
    underlying.push(reading.then(settle, settle));
    return withinBudget(reading);
  };
  const samples = await closedLoop(read, {
    concurrency: options.concurrency,
    ...(options.reads === undefined ? {} : { count: options.reads }),
    ...(options.untilMs === undefined ? {} : { untilMs: options.untilMs }),
  });
  const failures = samples.filter((s) => !s.ok);
  return {
    ms: spanMs(samples),
    samples,
    failed: failures.length,
    firstError: failures[0]?.error,
    settled: Promise.all(underlying),
  };
};
