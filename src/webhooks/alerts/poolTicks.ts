import type { RawCall, RawResult } from "../../chains/multicall3.js";
import { intWord, rawCall } from "../../chains/rawCalls.js";
import { EVENT_TOPICS } from "../../decoding/index.js";
import type { ChainLog } from "../../domain/ChainBlock.js";
import type { HeldRange } from "./heldRanges.js";

/**
 * The call that answers a held range's pool tick: a V3-design pool's `slot0`, an Algebra pool's
 * `globalState`, or, as V4 pools are no contracts of their own, the StateView's `getSlot0(poolId)`.
 * All three answer the tick as their second word.
 */
export const tickCall = (range: HeldRange): RawCall =>
  range.kind === "v4"
    ? rawCall(range.stateView, "getSlot0(bytes32)", range.pool)
    : rawCall(range.pool, range.kind === "algebra" ? "globalState()" : "slot0()");

/** The tick in a {@link tickCall}'s answer (int24), undefined if the call failed. */
export const decodeTick = (result: RawResult | undefined): number | undefined => {
  const tick = intWord(result, 1, 24);
  return tick === undefined ? undefined : Number(tick);
};

// Every PoolManager event that can come with a change of a pool's tick (a swap, a pool's first
// price) or of its liquidity names the pool id as topic 1.
const V4_POOL_TOPICS: ReadonlySet<string> = new Set([
  EVENT_TOPICS.v4Swap,
  EVENT_TOPICS.v4ModifyLiquidity,
  EVENT_TOPICS.v4Initialize,
]);

/**
 * Whether a block's logs can have moved the tick of one of `pools`: any log of a V3-design or
 * Algebra pool (its own contract emits its swaps), or a PoolManager `Swap`, `ModifyLiquidity` or
 * `Initialize` of a V4 pool (the PoolManager emits the events of all its pools).
 */
export const logsTouchPools = (logs: ReadonlyArray<ChainLog>, pools: ReadonlyArray<HeldRange>): boolean => {
  const addresses = new Set<string>();
  const v4 = new Set<string>();
  for (const p of pools)
    if (p.kind === "v4") v4.add(`${p.poolManager}|${p.pool}`);
    else addresses.add(p.pool);
  return logs.some(
    (log) =>
      addresses.has(log.address) ||
      (v4.size > 0 &&
        V4_POOL_TOPICS.has(log.topics[0] ?? "") &&
        v4.has(`${log.address}|${log.topics[1] ?? ""}`)),
  );
};
