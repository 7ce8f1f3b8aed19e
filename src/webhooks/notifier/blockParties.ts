import { collectMovements } from "../../decoding/activities/collectMovements.js";
import type { Movement } from "../../decoding/activities/Movement.js";
import type { DecodedEvent } from "../../decoding/events/DecodedEvent.js";
import { groupBy } from "../../decoding/groupBy.js";
import { decodeLogs } from "../../decoding/index.js";
import type { ChainBlock, ChainTransaction, InternalTransfer } from "../../domain/ChainBlock.js";

/** One transaction of a block with what it moved (empty for a failed transaction). */
export interface TransactionMoves {
  readonly tx: ChainTransaction;
  readonly movements: ReadonlyArray<Movement>;
}

/**
 * Each transaction of a live block with its value movements (its own value,
 * internal transfers, token transfers and wraps), from logs decoded once.
 */
export const transactionMoves = (
  block: ChainBlock,
  wrappedNative: string | undefined,
  events: ReadonlyArray<DecodedEvent> = decodeLogs(block.logs),
): ReadonlyArray<TransactionMoves> => {
  const eventsByTx = groupBy(events, (e) => e.transactionHash);
  const internal =
    block.internal_transfers === null
      ? undefined
      : groupBy(block.internal_transfers, (t: InternalTransfer) => t.transaction_hash);
  return block.transactions.map((tx) => ({
    tx,
    movements: tx.success
      ? collectMovements(
          tx,
          eventsByTx.get(tx.hash) ?? [],
          internal === undefined ? null : (internal.get(tx.hash) ?? []),
          wrappedNative,
        )
      : [],
  }));
};
