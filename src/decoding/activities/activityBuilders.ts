import type {
  ActivityBase,
  ApproveActivity,
  CallActivity,
  SwapActivity,
  TransferActivity,
} from "./Activity.js";
import { activityId } from "./activityId.js";
import type { Approval } from "./collectApprovals.js";
import type { SwapLegs } from "./detectSwap.js";
import type { Movement } from "./Movement.js";

/** The fields shared by every activity of one transaction. */
export type TransactionBase = Omit<ActivityBase, "activity_id" | "wallet_address" | "log_index">;

type Mutable<A> = { -readonly [K in keyof A]: A[K] };

// Builders spell every field out instead of spreading `tx`: object spread took most of the
// classification time in the benchmark (hundreds of thousands of activities per second).

/** `send`, `receive`, `mint` or `burn` of `wallet` for one movement. */
export const transferActivity = (
  tx: TransactionBase,
  m: Movement,
  type: TransferActivity["type"],
  wallet: string,
): TransferActivity => {
  const activity: Mutable<TransferActivity> = {
    activity_id: activityId(tx.chain_id, tx.tx_hash, m.position, type, wallet),
    wallet_address: wallet,
    chain_id: tx.chain_id,
    block_number: tx.block_number,
    block_time: tx.block_time,
    tx_hash: tx.tx_hash,
    tx_index: tx.tx_index,
    tx_from: tx.tx_from,
    tx_to: tx.tx_to,
    tx_value: tx.tx_value,
    tx_success: tx.tx_success,
    type,
    asset_type: m.assetType,
    token_address: m.token,
    from: m.from,
    to: m.to,
    value: m.value.toString(),
  };
  if (m.logIndex !== undefined) activity.log_index = m.logIndex;
  if (m.id !== undefined) activity.id = m.id.toString();
  return activity;
};

/** `approve` of the owner. */
export const approveActivity = (tx: TransactionBase, a: Approval): ApproveActivity => {
  const activity: Mutable<ApproveActivity> = {
    activity_id: activityId(tx.chain_id, tx.tx_hash, `l${a.logIndex}`, "approve", a.owner),
    wallet_address: a.owner,
    chain_id: tx.chain_id,
    block_number: tx.block_number,
    block_time: tx.block_time,
    tx_hash: tx.tx_hash,
    tx_index: tx.tx_index,
    log_index: a.logIndex,
    tx_from: tx.tx_from,
    tx_to: tx.tx_to,
    tx_value: tx.tx_value,
    tx_success: tx.tx_success,
    type: "approve",
    asset_type: a.assetType,
    token_address: a.token,
    from: a.owner,
    spender: a.spender,
  };
  if (a.value !== undefined) activity.value = a.value.toString();
  if (a.id !== undefined) activity.id = a.id.toString();
  if (a.approved !== undefined) activity.approved = a.approved;
  return activity;
};

/** `swap` of the transaction sender. */
export const swapActivity = (tx: TransactionBase, wallet: string, legs: SwapLegs): SwapActivity => ({
  activity_id: activityId(tx.chain_id, tx.tx_hash, "tx", "swap", wallet),
  wallet_address: wallet,
  chain_id: tx.chain_id,
  block_number: tx.block_number,
  block_time: tx.block_time,
  tx_hash: tx.tx_hash,
  tx_index: tx.tx_index,
  tx_from: tx.tx_from,
  tx_to: tx.tx_to,
  tx_value: tx.tx_value,
  tx_success: tx.tx_success,
  type: "swap",
  from: wallet,
  from_token_address: legs.fromToken,
  from_token_value: legs.fromValue.toString(),
  to_token_address: legs.toToken,
  to_token_value: legs.toValue.toString(),
  pools: legs.pools,
});

/** The transaction fields a `call` carries. */
export interface CallTransaction {
  readonly from: string;
  readonly to: string | null;
  readonly value: string;
  readonly input: string;
  readonly contract_address: string | null;
}

/** `call` of `wallet`: the sender (`outgoing`) or the called contract (`incoming`). */
export const callActivity = (
  tx: TransactionBase,
  call: CallTransaction,
  callType: CallActivity["call_type"],
  wallet: string,
): CallActivity => ({
  activity_id: activityId(tx.chain_id, tx.tx_hash, "tx", "call", wallet),
  wallet_address: wallet,
  chain_id: tx.chain_id,
  block_number: tx.block_number,
  block_time: tx.block_time,
  tx_hash: tx.tx_hash,
  tx_index: tx.tx_index,
  tx_from: tx.tx_from,
  tx_to: tx.tx_to,
  tx_value: tx.tx_value,
  tx_success: tx.tx_success,
  type: "call",
  call_type: callType,
  from: call.from,
  to: call.to ?? call.contract_address,
  value: call.value,
  data: call.input,
  function_selector: call.input.length >= 10 ? call.input.slice(0, 10) : null,
});
