import type { JetStreamClient, PubAck } from "@nats-io/jetstream";
import { Data, Effect } from "effect";
import type { ChainReorg } from "../domain/ChainBlock.js";
import { namingEarlierParts, type OutgoingMessage } from "./chainEventCodec.js";
import type { EncodedBlock } from "./encodedBlock.js";

export class PublishError extends Data.TaggedError("PublishError")<{
  readonly subject: string;
  readonly cause: unknown;
}> {
  override get message(): string {
    return `Publishing to ${this.subject} failed: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`;
  }
}

export const blockSubject = (chainId: number) => `chain.${chainId}.block`;
export const reorgSubject = (chainId: number) => `chain.${chainId}.reorg`;

/**
 * The suffix of a message id published after the chain's `reorgs`-th reorg. A block published again
 * after the chain reorganised away from it and back (A, B, then A again: load-balanced backends
 * that disagree do this within seconds) must not be dropped as a duplicate of its first publish,
 * or consumers that reverted it never see it again; a republish after a crash, within the same
 * epoch, still is. None before the first reorg, so ids stay as earlier versions wrote them.
 */
const epochSuffix = (reorgs: number) => (reorgs === 0 ? "" : `~${reorgs}`);

/** Publishes one of a block's messages under its id in the chain's epoch; resolves with the stream's ack. */
const publishMessage = (js: JetStreamClient, chainId: number, message: OutgoingMessage, reorgs: number) =>
  js.publish(blockSubject(chainId), message.data, {
    msgID: message.msgID + epochSuffix(reorgs),
    ...(message.headers === undefined ? {} : { headers: message.headers }),
  });

/**
 * Publishes a split event's parts one at a time, the last only once the others are stored, naming
 * the sequences the stream acknowledged them at: readers find them there, whatever other chains'
 * ingest processes published in between. A part an earlier attempt stored is acknowledged as a
 * duplicate with the sequence it was stored at (test/integration/ingest/interleavedParts.test.ts).
 */
const publishSplit = async (js: JetStreamClient, block: EncodedBlock, reorgs: number): Promise<PubAck> => {
  const earlier: Array<number> = [];
  for (const part of block.messages.slice(0, -1))
    earlier.push((await publishMessage(js, block.chainId, part, reorgs)).seq);
  return publishMessage(js, block.chainId, namingEarlierParts(block.messages.at(-1)!, earlier), reorgs);
};

/**
 * Publishes blocks and reorgs to CHAIN_EVENTS and waits for the stream's acks.
 * Message ids make a republish (after a crash between publish and checkpoint)
 * harmless: `<chainId>:<blockHash>` for blocks, `reorgMessageId` for reorgs, each with the
 * chain's reorg epoch (`epochSuffix`). Several blocks are published pipelined on one
 * connection, so they are stored in order while the acks are awaited together.
 * Blocks come encoded (encodedBlock.ts): large ones compressed and, past the server's
 * max_payload, split into parts (see chainEventCodec). A split block, rare, waits for the blocks
 * before it to be stored and is published part by part (publishSplit) before the blocks after it.
 * Answers the stream sequence of the last message (`undefined` for no blocks).
 */
export const publishBlocks = (js: JetStreamClient, blocks: ReadonlyArray<EncodedBlock>, reorgs = 0) =>
  Effect.tryPromise({
    try: async (): Promise<number | undefined> => {
      let pipelined: Array<Promise<PubAck>> = [];
      let last: PubAck | undefined;
      for (const block of blocks) {
        if (block.messages.length === 1) {
          pipelined.push(publishMessage(js, block.chainId, block.messages[0]!, reorgs));
          continue;
        }
        // Awaited first, also so that none of them fails unobserved while the parts go out.
        await Promise.all(pipelined);
        pipelined = [];
        last = await publishSplit(js, block, reorgs);
      }
      const acks = await Promise.all(pipelined);
      return (acks.at(-1) ?? last)?.seq;
    },
    catch: (cause) =>
      new PublishError({
        subject: blocks[0] === undefined ? "chain" : blockSubject(blocks[0].chainId),
        cause,
      }),
  });

/**
 * A reorg's message id: the chain, the newest block it removes, the ancestor it goes back to, and
 * the epoch. The same reorg published again (a crash before its save) is dropped as a duplicate; a
 * deeper one found on the resume (the same newest block removed, an older ancestor) is not.
 */
const reorgMessageId = (reorg: ChainReorg, reorgs: number) =>
  `${reorg.chain_id}:reorg:${reorg.removed[0]?.hash ?? ""}>${reorg.common_ancestor.hash}${epochSuffix(reorgs)}`;

/** Publishes the chain's reorg; `reorgs` is how many it had before this one (its epoch). */
export const publishReorg = (js: JetStreamClient, reorg: ChainReorg, reorgs = 0) =>
  Effect.tryPromise({
    try: () =>
      js.publish(reorgSubject(reorg.chain_id), JSON.stringify(reorg), {
        msgID: reorgMessageId(reorg, reorgs),
      }),
    catch: (cause) => new PublishError({ subject: reorgSubject(reorg.chain_id), cause }),
  });
