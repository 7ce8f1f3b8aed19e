import type { TransactionLike } from "./activities/classifyTransaction.js";
import type { InternalTransferLike } from "./activities/collectMovements.js";
import type { LogLike } from "./events/DecodedEvent.js";

/** An internal transfer with the transaction it belongs to; `InternalTransfer` satisfies it. */
export interface BlockInternalTransferLike extends InternalTransferLike {
  readonly transaction_hash: string;
}

/** The block fields the block-level helpers read; `ChainBlock` satisfies it. */
export interface BlockLike {
  readonly chain_id: number;
  readonly number: number;
  /** Unix seconds. */
  readonly timestamp: number;
  readonly transactions: ReadonlyArray<TransactionLike>;
  readonly logs: ReadonlyArray<LogLike>;
  /** Null when the chain has no traces. */
  readonly internal_transfers: ReadonlyArray<BlockInternalTransferLike> | null;
}
