import type { CallFrame, RpcBlock, RpcReceipt, RpcTransaction } from "../../src/chains/rpc/RpcTypes.js";
import type { ChainBlock } from "../../src/domain/ChainBlock.js";
import {
  decodeChainEvent,
  encodeBlockEvent,
  encodeChainEvent,
  type OutgoingMessage,
} from "../../src/ingest/chainEventCodec.js";
import { normalizeLiveBlock } from "../../src/ingest/normalizeBlock.js";
import type { ChainProfile } from "../replay/chainProfiles.js";
import { makeBlock } from "../replay/syntheticChain.js";
import { percentile } from "./stats.js";

/** The JetStream file store nats.conf gives (max_file_store). */
const STORE_BYTES = 10 * 1024 ** 3;
const BLOCKS = 20;
/** Alternated passes over the blocks each way; the median pass is reported (this machine is noisy). */
const PASSES = 7;
const MAX_PAYLOAD = 8 * 1024 * 1024;

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

/** A synthetic block of `profile` as ingest builds it from the node's answers. */
export const messageOf = (profile: ChainProfile, number: number): ChainBlock => {
  const made = makeBlock(profile, number, 0, 0, 1_800_000_000 + number);
  return normalizeLiveBlock(
    8453,
    JSON.parse(made.full) as RpcBlock<RpcTransaction>,
    JSON.parse(made.receipts) as ReadonlyArray<RpcReceipt>,
    profile.traces
      ? (JSON.parse(made.traces) as ReadonlyArray<{ txHash?: string; result?: CallFrame }>)
      : null,
  );
};

const bytesOf = (messages: ReadonlyArray<OutgoingMessage>) =>
  messages.reduce((sum, m) => sum + m.data.length, 0);

/** Median ms a block of building each block's message with `encode`, and of reading it back as a consumer does. */
const timed = (
  blocks: ReadonlyArray<ChainBlock>,
  encode: (block: ChainBlock) => ReadonlyArray<OutgoingMessage>,
) => {
  const build: Array<number> = [];
  const read: Array<number> = [];
  let bytes = 0;
  for (let pass = 0; pass < PASSES; pass++) {
    const started = performance.now();
    const messages = blocks.map(encode);
    build.push((performance.now() - started) / blocks.length);
    const readFrom = performance.now();
    for (const [message] of messages)
      decodeChainEvent({
        subject: "chain.8453.block",
        seq: 1,
        data: message!.data,
        headers: message!.headers,
      });
    read.push((performance.now() - readFrom) / blocks.length);
    bytes = messages.reduce((sum, m) => sum + bytesOf(m), 0) / blocks.length;
  }
  return { build: percentile(build, 50), read: percentile(read, 50), bytes };
};

/**
 * Bytes per block message of each profile as ingest publishes it (as bytes, blockBytes.ts), beside
 * its JSON brotli-compressed as ingest published it before; what each costs to build and to read
 * back; and what a day of it puts in CHAIN_EVENTS.
 */
export const blockMessageLines = (profiles: ReadonlyArray<ChainProfile>): ReadonlyArray<string> => {
  const lines = [
    `-- 1. block messages (${BLOCKS} blocks each): as bytes, as ingest publishes them, beside JSON; build and read back, median of ${PASSES} passes`,
  ];
  for (const profile of profiles) {
    const blocks = Array.from({ length: BLOCKS }, (_, i) => messageOf(profile, 1_000 + i));
    const mean = (pick: (block: ChainBlock) => number) =>
      blocks.reduce((sum, b) => sum + pick(b), 0) / BLOCKS;
    const json = mean((b) => JSON.stringify(b).length);
    const calldata = mean((b) => b.transactions.reduce((sum, tx) => sum + tx.input.length, 0));
    const asJson = timed(blocks, (b) => encodeChainEvent(JSON.stringify(b), "8453:0x", MAX_PAYLOAD));
    const asBytes = timed(blocks, (b) => encodeBlockEvent(b, "8453:0x", MAX_PAYLOAD));
    const perDay = (86_400_000 / profile.blockTimeMs) * asBytes.bytes;
    lines.push(
      `${profile.name} (${profile.txPerBlock} tx, ${mean((b) => b.logs.length).toFixed(0)} logs, a block every ${profile.blockTimeMs} ms): ` +
        `${kb(json)} KB of JSON, calldata ${((100 * calldata) / json).toFixed(0)}% of it; ` +
        `published as bytes ${kb(asBytes.bytes)} KB, built in ${asBytes.build.toFixed(3)} ms, read in ${asBytes.read.toFixed(3)} ms; ` +
        `JSON brotli-compressed ${kb(asJson.bytes)} KB, ${asJson.build.toFixed(3)} ms, ${asJson.read.toFixed(3)} ms ` +
        `(bytes over JSON: size x${(asBytes.bytes / asJson.bytes).toFixed(2)}, build x${(asBytes.build / asJson.build).toFixed(2)}, read x${(asBytes.read / asJson.read).toFixed(2)}); ` +
        `${(perDay / 1024 ** 3).toFixed(2)} GB a day in CHAIN_EVENTS, so the 10 GB store holds ${(STORE_BYTES / perDay).toFixed(1)} days of this chain alone`,
    );
  }
  return lines;
};
