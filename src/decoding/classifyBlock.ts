import type { Activity } from "./activities/Activity.js";
import { toBlockTime } from "./activities/blockTime.js";
import { type ClassifyOptions, classifyTransaction } from "./activities/classifyTransaction.js";
import type { BlockInternalTransferLike, BlockLike } from "./BlockLike.js";
import { decodeLogs } from "./decodeLog.js";
import type { DecodedEvent } from "./events/DecodedEvent.js";
import { groupBy } from "./groupBy.js";

const NO_EVENTS: ReadonlyArray<DecodedEvent> = [];
const NO_TRANSFERS: ReadonlyArray<BlockInternalTransferLike> = [];

/**
 * Every activity of every wallet in a block, in transaction order (see `classifyTransaction` for the
 * order inside one). Pass `events` when the block's logs are already decoded, to decode them once.
 */
export const classifyBlock = (
  block: BlockLike,
  options: ClassifyOptions = {},
  events: ReadonlyArray<DecodedEvent> = decodeLogs(block.logs),
): Array<Activity> => {
  const context = {
    chainId: block.chain_id,
    blockNumber: block.number,
    blockTime: toBlockTime(block.timestamp),
  };
  const eventsByTx = groupBy(events, (e) => e.transactionHash);
  const transfers = block.internal_transfers;
  const transfersByTx = transfers === null ? undefined : groupBy(transfers, (t) => t.transaction_hash);
  const out: Array<Activity> = [];
  for (const tx of block.transactions) {
    const internal = transfersByTx === undefined ? null : (transfersByTx.get(tx.hash) ?? NO_TRANSFERS);
    const activities = classifyTransaction(
      context,
      tx,
      eventsByTx.get(tx.hash) ?? NO_EVENTS,
      internal,
      options,
    );
    for (const activity of activities) out.push(activity);
  }
  return out;
};
