import type { JetStreamManager, StoredMsg } from "@nats-io/jetstream";
import { Data } from "effect";
import { isChainBlock, isChainReorg } from "../domain/chainEventShape.js";
import type { Checkpoint } from "./CheckpointStore.js";
import {
  chainEventsReader,
  decodeChainEvent,
  readSplitEvent,
  SplitPart,
  UnreadableChainEvent,
} from "./chainEventCodec.js";
import { type BlockRef, extend } from "./reconcile.js";

/** A chain event as a follower reads it back: a block's place in the chain, or a reorg's ancestor. */
export type PublishedEvent =
  | { readonly kind: "block"; readonly ref: BlockRef; readonly seq: number }
  | { readonly kind: "reorg"; readonly ancestor: number; readonly seq: number };

/** CHAIN_EVENTS as it stands: which stream it is (its creation time) and the sequences it holds. */
export interface ChainEventsState {
  readonly created: string;
  readonly firstSeq: number;
  readonly lastSeq: number;
}

/** What a chain's follower reads back of CHAIN_EVENTS when it takes the chain. */
export interface PublishedAfter {
  readonly state: () => Promise<ChainEventsState>;
  /** The chain's events the stream holds after a sequence, oldest first. */
  readonly events: (seq: number) => Promise<ReadonlyArray<PublishedEvent>>;
}

/** CHAIN_EVENTS could not be read back (the step fails and is tried again). */
export class ChainEventsReadError extends Data.TaggedError("ChainEventsReadError")<{
  readonly what: string;
  readonly cause: unknown;
}> {
  override get message(): string {
    return `reading back ${this.what} from CHAIN_EVENTS failed: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`;
  }
}

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
 * request, other chains' messages skipped by the server (`next_by_subj`), until none is left. A
 * follower publishes a step's blocks and then saves its checkpoint; one stopped between the two left
 * blocks its checkpoint does not name, and consumers applied them (publishedWindow.ts,
 * `adoptPublished`). Rejects when the stream cannot be read.
 */
export const publishedAfterIn = (jsm: JetStreamManager, chainId: number): PublishedAfter => ({
  state: async () => {
    const info = await jsm.streams.info("CHAIN_EVENTS");
    return { created: info.created, firstSeq: info.state.first_seq, lastSeq: info.state.last_seq };
  },
  events: async (after) => {
    const events: Array<PublishedEvent> = [];
    for (let seq = after + 1; ; ) {
      // STREAM.MSG.GET takes `next_by_subj` (nats-server 2.9 and later), though the client's type
      // names it for direct gets only; read from the stream's leader, as leases are.
      const query = { seq, next_by_subj: `chain.${chainId}.*` } as unknown as { seq: number };
      const stored = await jsm.streams.getMessage("CHAIN_EVENTS", query);
      if (stored === null) return events;
      const event = await eventOf(jsm, chainId, stored);
      if (event !== undefined) events.push(event);
      seq = stored.seq + 1;
    }
  },
});

/**
 * The checkpoint with `events` (read back after its sequence) taken in as published: blocks extend
 * the window as consumers applied them, reorgs rewind it and move the epoch. `stray` are blocks
 * stored above one that was not (a pipelined publish that failed part-way), highest first: the
 * index recorded a gap and applied them, and would skip the missing block when it came, so they
 * are to be removed by a reorg back to the window's tip and published again in order.
 */
export const takeIn = (
  checkpoint: Checkpoint,
  events: ReadonlyArray<PublishedEvent>,
  depth: number,
): { readonly taken: Checkpoint; readonly stray: ReadonlyArray<BlockRef> } => {
  let { window, start } = checkpoint;
  let reorgs = checkpoint.reorgs ?? 0;
  let stray: Array<BlockRef> = [];
  for (const event of events) {
    if (event.kind === "reorg") {
      reorgs++;
      window = window.filter((ref) => ref.number <= event.ancestor);
      stray = stray.filter((ref) => ref.number <= event.ancestor);
      if (window.length === 0) start = event.ancestor + 1;
      continue;
    }
    const tip = window.at(-1);
    // A block at or below the tip was skipped by the index as applied already.
    if (tip !== undefined && event.ref.number <= tip.number) continue;
    if (tip === undefined && event.ref.number < start) continue;
    // An empty window is extended only by the block at `start` (reconcile.ts), a held one only by
    // the block after its tip: a block above that was stored while the one before it was not.
    const due = tip === undefined ? start : tip.number + 1;
    if (stray.length > 0 || event.ref.number > due) stray.push(event.ref);
    else window = extend(window, event.ref, depth);
  }
  const seq = events.at(-1)?.seq ?? checkpoint.seq;
  return {
    taken: { ...checkpoint, window, start, reorgs, ...(seq === undefined ? {} : { seq }) },
    stray: [...new Map(stray.map((ref) => [ref.number, ref])).values()].sort((a, b) => b.number - a.number),
  };
};
