import type { ActivityType } from "./Activity.js";

/**
 * `<chain_id>:<tx_hash>:<position>:<type>:<wallet>`. Unique within a block: a log yields at most one
 * activity per (type, wallet), batches get a sub-index, and the transaction-level activities (native
 * value, swap, call) differ by type. Stable across re-processing of the same block, so webhook
 * deliveries can be de-duplicated on it.
 */
export const activityId = (
  chainId: number,
  txHash: string,
  position: string,
  type: ActivityType,
  wallet: string,
): string => `${chainId}:${txHash}:${position}:${type}:${wallet}`;
