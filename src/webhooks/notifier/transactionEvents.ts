import type { ChainConfig } from "../../chains/ChainsConfig.js";
import { toBlockTime } from "../../decoding/index.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import type { WebhookRecord } from "../WebhookRecord.js";
import type { TransactionMoves } from "./blockParties.js";
import { matchesTransaction } from "./filters.js";

const hex = (decimal: string | number) => `0x${BigInt(decimal).toString(16)}`;

/** One element of a `transactions` delivery (compatible API section 8.4, plus `event_id` and `removed`). */
export interface TransactionEvent {
  /** `<chain_id>:<tx_hash>:<address>`: the same for every delivery of this transaction to this address. */
  readonly event_id: string;
  readonly removed: boolean;
  readonly chain: string;
  readonly chain_id: number;
  /** The subscribed address. */
  readonly address: string;
  readonly block_time: string;
  readonly block_number: number;
  readonly block_hash: string;
  readonly index: number;
  readonly hash: string;
  /** The subscribed address's role, capitalised as in the compatible API. */
  readonly transaction_type: "Sender" | "Receiver";
  readonly from: string;
  readonly to: string | null;
  readonly contract_address: string | null;
  /** Hex quantities, as in the compatible API. */
  readonly value: string;
  readonly nonce: string;
  readonly gas_price: string;
  readonly gas_used: string;
  readonly effective_gas_price: string;
  readonly success: boolean;
  readonly data: string;
  readonly logs: ReadonlyArray<{
    readonly address: string;
    readonly log_index: number;
    readonly data: string;
    readonly topics: ReadonlyArray<string>;
  }>;
}

/**
 * The transactions of a block that `record` follows: those sent or received
 * (`to`, or the created contract) by one of its `addresses`, passing its
 * filters. A transaction from an address to itself is reported once, as `Sender`
 * unless the filter asks for receivers.
 */
export const transactionEvents = (
  chain: ChainConfig,
  block: ChainBlock,
  moves: ReadonlyArray<TransactionMoves>,
  record: WebhookRecord,
  addresses: ReadonlySet<string>,
): ReadonlyArray<TransactionEvent> => {
  const out: Array<TransactionEvent> = [];
  const logsByTx = new Map<string, Array<ChainBlock["logs"][number]>>();
  for (const log of block.logs) {
    const list = logsByTx.get(log.transaction_hash) ?? [];
    list.push(log);
    logsByTx.set(log.transaction_hash, list);
  }
  for (const { tx, movements } of moves) {
    const receiver = tx.to ?? tx.contract_address;
    const moved = {
      assetTypes: new Set(movements.map((m) => m.assetType)),
      tokens: new Set(movements.map((m) => m.token)),
    };
    const candidates: Array<{ address: string; role: "sender" | "receiver"; other: string | null }> = [];
    if (addresses.has(tx.from)) candidates.push({ address: tx.from, role: "sender", other: receiver });
    if (receiver !== null && addresses.has(receiver))
      candidates.push({ address: receiver, role: "receiver", other: tx.from });
    const reported = new Set<string>();
    for (const candidate of candidates) {
      if (reported.has(candidate.address)) continue;
      if (!matchesTransaction(record, candidate.role, candidate.other, moved)) continue;
      reported.add(candidate.address);
      out.push({
        event_id: `${block.chain_id}:${tx.hash}:${candidate.address}`,
        removed: false,
        chain: chain.name,
        chain_id: block.chain_id,
        address: candidate.address,
        block_time: toBlockTime(block.timestamp),
        block_number: block.number,
        block_hash: block.hash,
        index: tx.index,
        hash: tx.hash,
        transaction_type: candidate.role === "sender" ? "Sender" : "Receiver",
        from: tx.from,
        to: tx.to,
        contract_address: tx.contract_address,
        value: hex(tx.value),
        nonce: hex(tx.nonce),
        gas_price: hex(tx.effective_gas_price),
        gas_used: hex(tx.gas_used),
        effective_gas_price: hex(tx.effective_gas_price),
        success: tx.success,
        data: tx.input,
        logs: (logsByTx.get(tx.hash) ?? []).map((log) => ({
          address: log.address,
          log_index: log.log_index,
          data: log.data,
          topics: log.topics,
        })),
      });
    }
  }
  return out;
};
