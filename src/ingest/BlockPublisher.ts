import type { JetStreamClient } from "@nats-io/jetstream";
import { Data, Effect } from "effect";
import type { ChainReorg } from "../domain/ChainBlock.js";
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
 * Publishes blocks and reorgs to CHAIN_EVENTS and waits for the stream's acks.
 * Message ids make a republish (after a crash between publish and checkpoint)
 * harmless: `<chainId>:<blockHash>` for blocks, `<chainId>:reorg:<first removed hash>`
 * for reorgs. Several blocks are published pipelined on one connection, so they
 * are stored in order while the acks are awaited together. Blocks come encoded (encodedBlock.ts):
 * large ones compressed and, past the server's max_payload, split into parts (see chainEventCodec).
 */
export const publishBlocks = (js: JetStreamClient, blocks: ReadonlyArray<EncodedBlock>) =>
  Effect.tryPromise({
    try: () =>
      Promise.all(
        blocks.flatMap((block) =>
          block.messages.map((message) =>
            js.publish(blockSubject(block.chainId), message.data, {
              msgID: message.msgID,
              ...(message.headers === undefined ? {} : { headers: message.headers }),
            }),
          ),
        ),
      ),
    catch: (cause) =>
      new PublishError({
        subject: blocks[0] === undefined ? "chain" : blockSubject(blocks[0].chainId),
        cause,
      }),
  });

export const publishReorg = (js: JetStreamClient, reorg: ChainReorg) =>
  Effect.tryPromise({
    try: () =>
      js.publish(reorgSubject(reorg.chain_id), JSON.stringify(reorg), {
        msgID: `${reorg.chain_id}:reorg:${reorg.removed[0]?.hash ?? reorg.common_ancestor.hash}`,
      }),
    catch: (cause) => new PublishError({ subject: reorgSubject(reorg.chain_id), cause }),
  });
