import type { PublicClient } from "viem";

/** The last block at or before `timestamp` (unix seconds), found by bisecting the chain's own headers. */
export const blockAtOrBefore = async (client: PublicClient, timestamp: number): Promise<bigint> => {
  let low = 0n;
  let high = await client.getBlockNumber();
  while (low < high) {
    const mid = (low + high + 1n) / 2n;
    if (Number((await client.getBlock({ blockNumber: mid })).timestamp) <= timestamp) low = mid;
    else high = mid - 1n;
  }
  return low;
};
