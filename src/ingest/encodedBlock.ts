import type { ChainBlock } from "../domain/ChainBlock.js";
import { encodeBlockEvent, type OutgoingMessage } from "./chainEventCodec.js";
import type { BlockRef } from "./reconcile.js";

/**
 * A block message as ingest holds it between reading and publishing: its place in the chain and
 * its messages, already written as bytes (blockBytes.ts). A block is encoded as soon as it is read, so
 * what waits for its turn to be published (up to a catch-up range and the range read ahead, 64
 * blocks) is bytes outside the JavaScript heap rather than the block's objects, which
 * lived long enough to be copied by young-generation collections. On Base-sized blocks garbage
 * collection fell from 16-19 % of ingest's main thread to 13-15 % (docs/benchmarks.md, chain-scale).
 */
export interface EncodedBlock {
  readonly chainId: number;
  readonly ref: BlockRef;
  /** How many logs it carries (the follower's events-per-second meter). */
  readonly logs: number;
  /** One, or a split block's parts in order, the last published once the others are stored (BlockPublisher). */
  readonly messages: ReadonlyArray<OutgoingMessage>;
}

export const encodeBlock = (block: ChainBlock, maxPayload: number): EncodedBlock => ({
  chainId: block.chain_id,
  ref: { number: block.number, hash: block.hash, parentHash: block.parent_hash },
  logs: block.logs.length,
  messages: encodeBlockEvent(block, `${block.chain_id}:${block.hash}`, maxPayload),
});
