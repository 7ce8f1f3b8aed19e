import type { JetStreamManager, StoredMsg } from "@nats-io/jetstream";
import { isChainBlock, isChainReorg } from "../domain/chainEventShape.js";
import {
  chainEventsReader,
  decodeChainEvent,
  readSplitEvent,
  SplitPart,
  UnreadableChainEvent,
} from "./chainEventCodec.js";
import type { BlockRef } from "./reconcile.js";

/**
 * The most messages read after a checkpoint. A holder publishes one step (a history range of up to
 * 500 blocks, or a catch-up range and the range read ahead) before it saves; a split block adds its
 * parts. More means the checkpoint is not the one the stream was published from.
 */
export const PUBLISHED_AFTER_LIMIT = 5_000;

/** A chain event as a follower reads it back: a block's place in the chain, or a reorg's ancestor. */
export type PublishedEvent =
  | { readonly kind: "block"; readonly ref: BlockRef; readonly seq: number }
  | { readonly kind: "reorg"; readonly ancestor: number; readonly seq: number };

/** The chain's events CHAIN_EVENTS holds after a stream sequence, oldest first. */
export type PublishedAfter = (seq: number) => Promise<ReadonlyArray<PublishedEvent>>;

/** The event a stored message holds (a split block at its last part), or `undefined` for any other. */
const eventOf = async (
  jsm: JetStreamManager,
  chainId: number,
  stored: StoredMsg,
): Promise<PublishedEvent | undefined> => {
  const message = { subject: stored.subject, data: stored.data, headers: stored.header, seq: stored.seq };
  const decoded = decodeChainEvent(message);
  // A part before the last is read with the last; a split block whose last part was never
  // published (its holder stopped part-way) was never shown to a consumer.
  if (decoded instanceof SplitPart && !decoded.isLast) return undefined;
  const data = decoded instanceof SplitPart ? await readSplitEvent(decoded, chainEventsReader(jsm)) : decoded;
  if (data instanceof UnreadableChainEvent) return undefined;
  if (stored.subject.endsWith(".reorg"))
    return isChainReorg(data, chainId)
      ? { kind: "reorg", ancestor: data.common_ancestor.number, seq: stored.seq }
      : undefined;
  return isChainBlock(data, chainId)
    ? {
        kind: "block",
        ref: { number: data.number, hash: data.hash, parentHash: data.parent_hash },
        seq: stored.seq,
      }
    : undefined;
};

/**
 * Reads the chain's events (`chain.<id>.*`) that CHAIN_EVENTS holds after a sequence, one message a
 * request, skipping other chains' messages on the server (`next_by_subj`). A follower publishes a
 * step's blocks and then saves its checkpoint; one stopped between the two left blocks its
 * checkpoint does not name, and consumers applied them (publishedWindow.ts, `adoptPublished`).
 * Fails when the stream cannot be read: the step is tried again.
 */
export const publishedAfterIn =
  (jsm: JetStreamManager, chainId: number): PublishedAfter =>
  async (after) => {
    const events: Array<PublishedEvent> = [];
    let seq = after + 1;
    for (let read = 0; read < PUBLISHED_AFTER_LIMIT; read++) {
      // STREAM.MSG.GET takes `next_by_subj` (nats-server 2.9 and later), though the client's type
      // names it for direct gets only; read from the stream's leader, as leases are.
      const query = { seq, next_by_subj: `chain.${chainId}.*` } as unknown as { seq: number };
      const stored = await jsm.streams.getMessage("CHAIN_EVENTS", query);
      if (stored === null) return events;
      const event = await eventOf(jsm, chainId, stored);
      if (event !== undefined) events.push(event);
      seq = stored.seq + 1;
    }
    throw new Error(
      `more than ${PUBLISHED_AFTER_LIMIT} messages of chain ${chainId} follow stream sequence ${after}, where its checkpoint stands`,
    );
  };
