import { MemoryLevel } from "memory-level";
import type { LogLike } from "../../src/decoding/index.js";
import { BLOCK_MESSAGE_VERSION, ChainBlock, ChainLog } from "../../src/domain/ChainBlock.js";
import type { Db } from "../../src/storage/Level.js";

/** Block `n`'s hash on chain 1 of the indexer's unit tests: each block's parent is block `n - 1`. */
export const blockHash = (n: number) => `0x${"aa"}${n.toString(16).padStart(62, "0")}`;

/** A live block of chain 1 carrying `logs` (numbered in order), on top of block `number - 1`. */
export const blockWithLogs = (number: number, logs: ReadonlyArray<LogLike>) =>
  ChainBlock.make({
    version: BLOCK_MESSAGE_VERSION,
    chain_id: 1,
    number,
    hash: blockHash(number),
    parent_hash: blockHash(number - 1),
    timestamp: 1_700_000_000 + number * 12,
    source: "live",
    transactions: [],
    logs: logs.map((log, i) =>
      ChainLog.make({ ...log, log_index: i } as ConstructorParameters<typeof ChainLog>[0]),
    ),
    internal_transfers: null,
  });

/** An empty in-memory index database. */
export const memoryDb = () => new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
