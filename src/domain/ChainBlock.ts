import { Schema } from "effect";

/**
 * One block as ingestion publishes it on `chain.<chainId>.block` (JetStream
 * stream CHAIN_EVENTS, `Nats-Msg-Id` = `<chainId>:<blockHash>`). Everything a
 * consumer needs to index, classify activity and build webhook payloads without
 * calling the node again. Hex strings are lower case; quantities that can exceed
 * 2^53 (wei values, gas prices) are decimal strings; block numbers, indexes and
 * timestamps are numbers.
 */
export const BLOCK_MESSAGE_VERSION = 1;

const Hex = Schema.String.pipe(Schema.pattern(/^0x[0-9a-f]*$/));
const Address = Schema.String.pipe(Schema.pattern(/^0x[0-9a-f]{40}$/));
const Hash = Schema.String.pipe(Schema.pattern(/^0x[0-9a-f]{64}$/));
const DecimalString = Schema.String.pipe(Schema.pattern(/^[0-9]+$/));

export class ChainTransaction extends Schema.Class<ChainTransaction>("ChainTransaction")({
  hash: Hash,
  /** Position in the block. */
  index: Schema.NonNegativeInt,
  from: Address,
  /** `null` for contract creation. */
  to: Schema.NullOr(Address),
  /** Native value sent, wei. */
  value: DecimalString,
  /** Calldata. Kept whole: webhook payloads carry it, and decoding needs the selector and arguments. */
  input: Hex,
  nonce: Schema.NonNegativeInt,
  /** EIP-2718 type, e.g. 2. */
  type: Schema.NonNegativeInt,
  /** Receipt status: true when the transaction succeeded. */
  success: Schema.Boolean,
  gas_used: DecimalString,
  effective_gas_price: DecimalString,
  /** Address of the contract created, when this transaction created one. */
  contract_address: Schema.NullOr(Address),
}) {}

export class ChainLog extends Schema.Class<ChainLog>("ChainLog")({
  transaction_hash: Hash,
  transaction_index: Schema.NonNegativeInt,
  /** Position in the block. */
  log_index: Schema.NonNegativeInt,
  address: Address,
  topics: Schema.Array(Hash),
  data: Hex,
}) {}

/** A native value moved by a call inside a transaction (from traces), not by the transaction itself. */
export class InternalTransfer extends Schema.Class<InternalTransfer>("InternalTransfer")({
  transaction_hash: Hash,
  from: Address,
  to: Address,
  value: DecimalString,
  /** Depth in the call tree (1 = a call made by the transaction's target). */
  depth: Schema.Int.pipe(Schema.positive()),
}) {}

export class ChainBlock extends Schema.Class<ChainBlock>("ChainBlock")({
  version: Schema.Literal(BLOCK_MESSAGE_VERSION),
  chain_id: Schema.Int.pipe(Schema.positive()),
  number: Schema.NonNegativeInt,
  hash: Hash,
  parent_hash: Hash,
  /** Unix seconds. */
  timestamp: Schema.NonNegativeInt,
  /**
   * `live`: the whole block, read as the chain advanced (or while catching up).
   * `history`: a block before the service first started, read in bulk with
   * eth_getLogs: logs only (no transactions, no traces). Indexes use both;
   * webhooks are delivered only for live blocks.
   */
  source: Schema.Literal("live", "history"),
  transactions: Schema.Array(ChainTransaction),
  /** Logs of successful transactions, in block order. */
  logs: Schema.Array(ChainLog),
  /** Present when the chain's node serves traces (chain config `traces: true`), else `null`. */
  internal_transfers: Schema.NullOr(Schema.Array(InternalTransfer)),
}) {}

/** Published on `chain.<chainId>.reorg` before the new canonical blocks: what consumers must undo. */
export class ChainReorg extends Schema.Class<ChainReorg>("ChainReorg")({
  version: Schema.Literal(BLOCK_MESSAGE_VERSION),
  chain_id: Schema.Int.pipe(Schema.positive()),
  /** The last block both branches share. */
  common_ancestor: Schema.Struct({ number: Schema.NonNegativeInt, hash: Hash }),
  /** Blocks no longer canonical, highest first (the order to revert them in). */
  removed: Schema.Array(Schema.Struct({ number: Schema.NonNegativeInt, hash: Hash })),
}) {}
