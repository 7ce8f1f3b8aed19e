import type { DecodedEvent } from "../events/DecodedEvent.js";
import type { Activity } from "./Activity.js";
import {
  approveActivity,
  type CallTransaction,
  callActivity,
  swapActivity,
  type TransactionBase,
  transferActivity,
} from "./activityBuilders.js";
import { type Approval, collectApprovals } from "./collectApprovals.js";
import { collectMovements, type InternalTransferLike, type MovementTransaction } from "./collectMovements.js";
import { detectSwap, type SwapLegs } from "./detectSwap.js";
import { type Movement, ZERO_ADDRESS } from "./Movement.js";

/** The transaction fields classification reads; `ChainTransaction` satisfies it. */
export interface TransactionLike extends MovementTransaction, CallTransaction {
  readonly hash: string;
  /** Position in the block. */
  readonly index: number;
  /** Receipt status. */
  readonly success: boolean;
}

/** Where the transaction sits. */
export interface BlockContext {
  readonly chainId: number;
  readonly blockNumber: number;
  /** From `toBlockTime`. */
  readonly blockTime: string;
}

/** Chain-specific knowledge classification needs. */
export interface ClassifyOptions {
  /**
   * The chain's wrapped-native token (chain config `wrapped_native`), lower case. Without it no
   * `Deposit`/`Withdrawal` counts as a wrap.
   */
  readonly wrappedNative?: string | undefined;
}

const inLogOrder = (events: ReadonlyArray<DecodedEvent>): ReadonlyArray<DecodedEvent> => {
  for (let k = 1; k < events.length; k++) {
    if (events[k]!.logIndex < events[k - 1]!.logIndex)
      return [...events].sort((a, b) => a.logIndex - b.logIndex);
  }
  return events;
};

const isSwapLeg = (swap: SwapLegs | undefined, m: Movement): boolean =>
  swap !== undefined &&
  (m.token === swap.fromToken || m.token === swap.toToken) &&
  (m.assetType === "native" || m.assetType === "erc20");

/** Appends the per-wallet activities of one movement, except the legs the sender's swap replaces. */
const pushMovement = (
  out: Array<Activity>,
  base: TransactionBase,
  m: Movement,
  sender: string,
  swap: SwapLegs | undefined,
) => {
  const replaced = isSwapLeg(swap, m);
  if (m.from === ZERO_ADDRESS) {
    if (m.to !== ZERO_ADDRESS && !(replaced && m.to === sender))
      out.push(transferActivity(base, m, "mint", m.to));
    return;
  }
  if (m.to === ZERO_ADDRESS) {
    if (!(replaced && m.from === sender)) out.push(transferActivity(base, m, "burn", m.from));
    return;
  }
  if (!(replaced && m.from === sender)) out.push(transferActivity(base, m, "send", m.from));
  if (!(replaced && m.to === sender)) out.push(transferActivity(base, m, "receive", m.to));
};

/** Movements and approvals interleaved by log index; native movements (no log) come first. */
const pushInOrder = (
  out: Array<Activity>,
  base: TransactionBase,
  movements: ReadonlyArray<Movement>,
  approvals: ReadonlyArray<Approval>,
  sender: string,
  swap: SwapLegs | undefined,
) => {
  let a = 0;
  for (const m of movements) {
    while (m.logIndex !== undefined && a < approvals.length && approvals[a]!.logIndex < m.logIndex) {
      out.push(approveActivity(base, approvals[a++]!));
    }
    pushMovement(out, base, m, sender, swap);
  }
  while (a < approvals.length) out.push(approveActivity(base, approvals[a++]!));
};

/** Calls for the sender and the called contract when nothing else in the transaction covers them. */
const pushCalls = (out: Array<Activity>, base: TransactionBase, tx: TransactionLike) => {
  const covered = new Set(out.map((activity) => activity.wallet_address));
  if (!covered.has(tx.from) && (tx.input !== "0x" || tx.to === null)) {
    out.push(callActivity(base, tx, "outgoing", tx.from));
  }
  if (tx.to !== null && tx.to !== tx.from && tx.input !== "0x" && !covered.has(tx.to)) {
    out.push(callActivity(base, tx, "incoming", tx.to));
  }
};

/**
 * The activities of every wallet involved in one transaction (definitions in docs/activities.md).
 * `events` are the transaction's decoded logs; `internalTransfers` its native internal transfers, or
 * null when the chain has no traces. Deterministic: the output depends only on the inputs, ordered
 * as native value, internal transfers, log-derived activities by log index, swap, calls.
 */
export const classifyTransaction = (
  context: BlockContext,
  tx: TransactionLike,
  events: ReadonlyArray<DecodedEvent>,
  internalTransfers: ReadonlyArray<InternalTransferLike> | null,
  options: ClassifyOptions = {},
): Array<Activity> => {
  const base: TransactionBase = {
    chain_id: context.chainId,
    block_number: context.blockNumber,
    block_time: context.blockTime,
    tx_hash: tx.hash,
    tx_index: tx.index,
    tx_from: tx.from,
    tx_to: tx.to,
    tx_value: tx.value,
    tx_success: tx.success,
  };
  // A reverted transaction moved nothing but still spent the sender's gas on a call.
  if (!tx.success) return [callActivity(base, tx, "outgoing", tx.from)];
  const ordered = inLogOrder(events);
  const movements = collectMovements(tx, ordered, internalTransfers, options.wrappedNative);
  const swap = detectSwap(tx.from, movements, ordered, internalTransfers !== null, options.wrappedNative);
  const out: Array<Activity> = [];
  pushInOrder(out, base, movements, collectApprovals(ordered), tx.from, swap);
  if (swap !== undefined) out.push(swapActivity(base, tx.from, swap));
  pushCalls(out, base, tx);
  return out;
};
