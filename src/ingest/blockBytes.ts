import type { ChainBlock, ChainLog, ChainTransaction, InternalTransfer } from "../domain/ChainBlock.js";
import { ByteReader, MalformedBytes } from "../lib/byteReader.js";
import { ByteWriter } from "../lib/byteWriter.js";

/**
 * A block message as bytes rather than JSON (`Content-Type` BLOCK_BYTES_TYPE on CHAIN_EVENTS).
 * Hashes, addresses, calldata and log data are written as their bytes, integers as LEB128, wei
 * amounts as their decimal text, and each address and topic once per block: later uses name its
 * first (a reference). A log names its transaction by the index it already carries. A Base-sized block (60 transactions, 88 logs) is about
 * a third of its JSON's bytes, a quarter more than that JSON brotli-compressed, and costs about half
 * of building that and a third of reading it (docs/benchmarks.md, chain-scale), so it is not
 * compressed; larger blocks are (chainEventCodec.ts).
 *
 * It reads back equal to the block, field for field, as its JSON would: a hex field that is not
 * lower-case hex of whole bytes is kept as text (ByteWriter.hex). A block the format cannot hold
 * (an integer field that is not a non-negative safe integer) makes {@link writeBlockBytes} throw,
 * and ingest then publishes it as JSON.
 *
 * Layout, in order: format version; the block's `version`, chain id, number, timestamp, source
 * (0 live, 1 history), hash, parent hash; the transactions, the logs, the internal transfers
 * (0 for none, else 1 and the list), each list as a count and its items.
 */
export const BLOCK_BYTES_TYPE = "application/x-chain-block";
const FORMAT = 1;

/**
 * The most of each list a block as bytes holds. A message never carries more (a block with more is
 * published as JSON), so hostile bytes make a reader build a bounded number of objects, not the
 * millions that a few KB of compressed one-byte items would name. Each is far above any chain's:
 * 45M gas buys about 2,100 transfers or 120,000 empty logs; the EVM gives a log 4 topics at most.
 */
export const MOST_IN_BLOCK_BYTES = {
  transactions: 100_000,
  logs: 1_000_000,
  topics: 4,
  transfers: 1_000_000,
};

/**
 * The most bytes a block as bytes takes, uncompressed: readers inflate a compressed one no further.
 * About ten times the largest block any chain makes (45M gas of calldata is under 3 MB); a block
 * that would take more is published as JSON, which readers inflate to 256 MiB.
 */
export const MOST_BLOCK_BYTES = 32 * 1024 * 1024;

/** The fewest bytes each item takes: a count over what is left at this many bytes each is refused. */
const FEWEST_BYTES = { transaction: 12, log: 6, topic: 1, transfer: 5 };

/** A log's transaction hash (a flag): 1 that of the block's transaction at the log's index, 0 named after it. */
const OWN_TRANSACTION = 1;
const NAMED_TRANSACTION = 0;

/** A reference: 0 a new value (its hex follows), 1 null, n + 2 the n-th value met in this block. */
const NEW = 0;
const NULL = 1;

class RefWriter {
  readonly #seen = new Map<string, number>();

  constructor(private readonly out: ByteWriter) {}

  ref(value: string | null): void {
    this.#add(value);
  }

  /** A value that may not be null: the reader refuses a null there, so the writer does. */
  value(value: string): void {
    if (value === null) throw new RangeError("null where a value belongs");
    this.#add(value);
  }

  #add(value: string | null): void {
    const known = value === null ? undefined : this.#seen.get(value);
    if (value === null) this.out.uint(NULL);
    else if (known !== undefined) this.out.uint(known + 2);
    else {
      this.#seen.set(value, this.#seen.size);
      this.out.uint(NEW);
      this.out.hex(value);
    }
  }
}

class RefReader {
  readonly #seen: Array<string> = [];

  constructor(private readonly input: ByteReader) {}

  ref(): string | null {
    const tag = this.input.uint();
    if (tag === NULL) return null;
    if (tag === NEW) {
      const value = this.input.hex();
      this.#seen.push(value);
      return value;
    }
    const value = this.#seen[tag - 2];
    if (value === undefined) throw new MalformedBytes(`reference ${tag} to nothing met yet`);
    return value;
  }

  /** A reference that may not be null. */
  value(): string {
    const value = this.ref();
    if (value === null) throw new MalformedBytes("null where a value belongs");
    return value;
  }
}

/** One writer for every block: its buffer grows to the largest block and is reused (bytes() copies out). */
const writer = new ByteWriter();

/** Throws when a list is longer than a reader takes ({@link MOST_IN_BLOCK_BYTES}). */
const atMost = (list: ReadonlyArray<unknown>, most: number, what: string): void => {
  if (list.length > most) throw new RangeError(`${list.length} ${what}, over the ${most} block bytes hold`);
};

export const writeBlockBytes = (block: ChainBlock): Buffer => {
  const out = writer.reset();
  const refs = new RefWriter(out);
  if (block.source !== "live" && block.source !== "history")
    throw new RangeError(`a block of source ${String(block.source)}`);
  atMost(block.transactions, MOST_IN_BLOCK_BYTES.transactions, "transactions");
  atMost(block.logs, MOST_IN_BLOCK_BYTES.logs, "logs");
  atMost(block.internal_transfers ?? [], MOST_IN_BLOCK_BYTES.transfers, "internal transfers");
  out.uint(FORMAT);
  out.uint(block.version);
  out.uint(block.chain_id);
  out.uint(block.number);
  out.uint(block.timestamp);
  out.byte(block.source === "live" ? 0 : 1);
  out.hex(block.hash);
  out.hex(block.parent_hash);
  out.uint(block.transactions.length);
  for (const tx of block.transactions) {
    out.hex(tx.hash);
    out.uint(tx.index);
    refs.value(tx.from);
    refs.ref(tx.to);
    out.text(tx.value);
    out.hex(tx.input);
    out.uint(tx.nonce);
    out.uint(tx.type);
    out.byte(tx.success ? 1 : 0);
    out.text(tx.gas_used);
    out.text(tx.effective_gas_price);
    refs.ref(tx.contract_address);
  }
  out.uint(block.logs.length);
  for (const log of block.logs) {
    out.uint(log.transaction_index);
    // Nearly always the hash of the block's transaction at that index: said in a byte.
    if (block.transactions[log.transaction_index]?.hash === log.transaction_hash) out.byte(OWN_TRANSACTION);
    else {
      out.byte(NAMED_TRANSACTION);
      refs.value(log.transaction_hash);
    }
    out.uint(log.log_index);
    refs.value(log.address);
    atMost(log.topics, MOST_IN_BLOCK_BYTES.topics, "topics");
    out.uint(log.topics.length);
    for (const topic of log.topics) refs.value(topic);
    out.hex(log.data);
  }
  if (block.internal_transfers === null) out.byte(0);
  else {
    out.byte(1);
    out.uint(block.internal_transfers.length);
    for (const transfer of block.internal_transfers) {
      refs.value(transfer.transaction_hash);
      refs.value(transfer.from);
      refs.value(transfer.to);
      out.text(transfer.value);
      out.uint(transfer.depth);
    }
  }
  if (out.length > MOST_BLOCK_BYTES) throw new RangeError(`${out.length} bytes, over ${MOST_BLOCK_BYTES}`);
  return out.bytes();
};

/** The block `bytes` hold; throws {@link MalformedBytes} for bytes that are not one. */
export const readBlockBytes = (bytes: Buffer): ChainBlock => {
  const input = new ByteReader(bytes);
  const refs = new RefReader(input);
  const format = input.uint();
  if (format !== FORMAT) throw new MalformedBytes(`block bytes of format ${format}, not ${FORMAT}`);
  const version = input.uint();
  const chain_id = input.uint();
  const number = input.uint();
  const timestamp = input.uint();
  const source = input.flag() ? "history" : "live";
  const hash = input.hex();
  const parent_hash = input.hex();
  // Lists are filled by push: `new Array(n)` of a large n takes a slower kind of storage.
  const transactions: Array<ChainTransaction> = [];
  const transactionCount = input.count(FEWEST_BYTES.transaction, MOST_IN_BLOCK_BYTES.transactions);
  for (let i = 0; i < transactionCount; i++)
    transactions.push({
      hash: input.hex(),
      index: input.uint(),
      from: refs.value(),
      to: refs.ref(),
      value: input.text(),
      input: input.hex(),
      nonce: input.uint(),
      type: input.uint(),
      success: input.flag(),
      gas_used: input.text(),
      effective_gas_price: input.text(),
      contract_address: refs.ref(),
    });
  const ownTransaction = (index: number): string => {
    const tx = transactions[index];
    if (tx === undefined) throw new MalformedBytes(`a log of transaction ${index}, which the block lacks`);
    return tx.hash;
  };
  const logs: Array<ChainLog> = [];
  const logCount = input.count(FEWEST_BYTES.log, MOST_IN_BLOCK_BYTES.logs);
  for (let i = 0; i < logCount; i++) {
    const transaction_index = input.uint();
    const transaction_hash = input.flag() ? ownTransaction(transaction_index) : refs.value();
    const log_index = input.uint();
    const address = refs.value();
    const topics: Array<string> = [];
    const topicCount = input.count(FEWEST_BYTES.topic, MOST_IN_BLOCK_BYTES.topics);
    for (let t = 0; t < topicCount; t++) topics.push(refs.value());
    logs.push({ transaction_hash, transaction_index, log_index, address, topics, data: input.hex() });
  }
  let internal_transfers: Array<InternalTransfer> | null = null;
  if (input.flag()) {
    internal_transfers = [];
    const transferCount = input.count(FEWEST_BYTES.transfer, MOST_IN_BLOCK_BYTES.transfers);
    for (let i = 0; i < transferCount; i++)
      internal_transfers.push({
        transaction_hash: refs.value(),
        from: refs.value(),
        to: refs.value(),
        value: input.text(),
        depth: input.uint(),
      });
  }
  if (!input.done) throw new MalformedBytes("bytes after the block");
  return {
    version: version as ChainBlock["version"],
    chain_id,
    number,
    hash,
    parent_hash,
    timestamp,
    source,
    transactions,
    logs,
    internal_transfers,
  };
};
