import {
  type CallFrame,
  hexToDecimal,
  hexToNumber,
  type RpcBlock,
  type RpcLog,
  type RpcReceipt,
  type RpcTransaction,
} from "../chains/rpc/RpcTypes.js";
import {
  BLOCK_MESSAGE_VERSION,
  type ChainBlock,
  type ChainLog,
  type ChainTransaction,
  type InternalTransfer,
} from "../domain/ChainBlock.js";

const lower = (s: string) => s.toLowerCase();

export const normalizeLog = (log: RpcLog): ChainLog => ({
  transaction_hash: lower(log.transactionHash),
  transaction_index: hexToNumber(log.transactionIndex),
  log_index: hexToNumber(log.logIndex),
  address: lower(log.address),
  topics: log.topics.map(lower),
  data: lower(log.data),
});

/**
 * Native value moved by inner calls, from a callTracer tree: every successful
 * CALL-like frame below the top level with a non-zero value. Frames under a
 * reverted frame moved nothing, so the walk stops at errors.
 */
export const internalTransfers = (
  txHash: string,
  frame: CallFrame,
  depth = 0,
  out: Array<InternalTransfer> = [],
) => {
  if (frame.error !== undefined) return out;
  if (
    depth > 0 &&
    frame.to !== undefined &&
    frame.value !== undefined &&
    BigInt(frame.value) > 0n &&
    frame.type !== "DELEGATECALL"
  ) {
    out.push({
      transaction_hash: txHash,
      from: lower(frame.from),
      to: lower(frame.to),
      value: hexToDecimal(frame.value),
      depth,
    });
  }
  for (const call of frame.calls ?? []) internalTransfers(txHash, call, depth + 1, out);
  return out;
};

/**
 * Builds the block message from a full block, its receipts and (optionally)
 * its call traces. Logs of failed transactions are dropped (nodes return none,
 * but the rule is stated here, not assumed). The message is built of plain objects
 * of the schema's types, without the schema classes' constructors: the inputs were
 * checked for consistency by the caller, and on a Base-sized block the constructors
 * (even without validation) were a fifth of this function's cost.
 */
export const normalizeLiveBlock = (
  chainId: number,
  block: RpcBlock<RpcTransaction>,
  receipts: ReadonlyArray<RpcReceipt>,
  traces: ReadonlyArray<{ readonly txHash?: string; readonly result?: CallFrame }> | null,
): ChainBlock => {
  const receiptByHash = new Map(receipts.map((r) => [lower(r.transactionHash), r]));
  const logs: Array<ChainLog> = [];
  const transactions = block.transactions.map((tx): ChainTransaction => {
    const hash = lower(tx.hash);
    const receipt = receiptByHash.get(hash);
    const success = receipt?.status === "0x1";
    if (success) for (const log of receipt!.logs) logs.push(normalizeLog(log));
    return {
      hash,
      index: hexToNumber(tx.transactionIndex),
      from: lower(tx.from),
      to: tx.to === null ? null : lower(tx.to),
      value: hexToDecimal(tx.value),
      input: lower(tx.input),
      nonce: hexToNumber(tx.nonce),
      type: tx.type === undefined ? 0 : hexToNumber(tx.type),
      success,
      gas_used: hexToDecimal(receipt?.gasUsed),
      effective_gas_price: hexToDecimal(receipt?.effectiveGasPrice),
      contract_address: receipt?.contractAddress ? lower(receipt.contractAddress) : null,
    };
  });
  logs.sort((a, b) => a.log_index - b.log_index);
  let transfers: Array<InternalTransfer> | null = null;
  if (traces !== null) {
    transfers = [];
    traces.forEach((trace, i) => {
      const hash = trace.txHash ? lower(trace.txHash) : transactions[i]?.hash;
      if (hash !== undefined && trace.result !== undefined)
        internalTransfers(hash, trace.result, 0, transfers!);
    });
  }
  return {
    version: BLOCK_MESSAGE_VERSION,
    chain_id: chainId,
    number: hexToNumber(block.number),
    hash: lower(block.hash),
    parent_hash: lower(block.parentHash),
    timestamp: hexToNumber(block.timestamp),
    source: "live",
    transactions,
    logs,
    internal_transfers: transfers,
  };
};

/** A history block: header and logs only (read in bulk with eth_getLogs). */
export const normalizeHistoryBlock = (
  chainId: number,
  header: RpcBlock<string>,
  logs: ReadonlyArray<RpcLog>,
): ChainBlock => ({
  version: BLOCK_MESSAGE_VERSION,
  chain_id: chainId,
  number: hexToNumber(header.number),
  hash: lower(header.hash),
  parent_hash: lower(header.parentHash),
  timestamp: hexToNumber(header.timestamp),
  source: "history",
  transactions: [],
  logs: logs.filter((log) => !log.removed).map(normalizeLog),
  internal_transfers: null,
});
