import { toEventSelector } from "viem";
import type { ChainBlock, ChainLog } from "../../src/domain/ChainBlock.js";

/** Hash of block `n` of a synthetic chain (`branch` tells two branches apart). */
export const hashOf = (n: number, branch = "a") =>
  `0x${branch.charCodeAt(0).toString(16).padStart(2, "0")}${n.toString(16).padStart(62, "0")}`;

/** A 32-byte word naming `address`, as a topic or a data word carries it. */
export const word = (address: string) => `0x${address.slice(2).padStart(64, "0")}`;

/** A log of `address` with `topics` and data `words` (each a 0x-prefixed 32-byte word). */
export const logOf = (address: string, topics: ReadonlyArray<string>, words: ReadonlyArray<string> = []) =>
  ({
    transaction_hash: `0x${"1".repeat(64)}`,
    transaction_index: 0,
    log_index: 0,
    address,
    topics,
    data: `0x${words.map((w) => w.slice(2)).join("")}`,
  }) as unknown as ChainLog;

/** A Chainlink-style `AnswerUpdated` of `aggregator`: a price event. */
export const answerUpdated = (aggregator: string) =>
  logOf(aggregator, [
    toEventSelector(
      "event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt)",
    ),
    word("0x0000000000000000000000000000000000000064"),
    word("0x0000000000000000000000000000000000000002"),
  ]);

/**
 * Live block `n` of a synthetic chain, child of block `n - 1` of the same branch, with `logs` and a
 * transaction from each of `senders`.
 */
export const alertBlock = (
  n: number,
  {
    logs = [],
    senders = [],
    branch = "a",
  }: { logs?: ReadonlyArray<ChainLog>; senders?: ReadonlyArray<string>; branch?: string } = {},
) =>
  ({
    version: 1,
    chain_id: 1,
    number: n,
    hash: hashOf(n, branch),
    parent_hash: hashOf(n - 1, branch),
    timestamp: 1_800_000_000 + n,
    source: "live",
    transactions: senders.map((from, index) => ({
      hash: `0x${(n * 100 + index).toString(16).padStart(64, "0")}`,
      index,
      from,
      to: null,
      value: "0",
      input: "0x",
      nonce: 0,
      type: 2,
      success: true,
      gas_used: "21000",
      effective_gas_price: "1",
      contract_address: null,
    })),
    logs,
    internal_transfers: null,
  }) as unknown as ChainBlock;
