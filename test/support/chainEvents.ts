import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { ChainBlock, ChainReorg } from "../../src/domain/ChainBlock.js";
import { ChainEventAssembler } from "../../src/ingest/chainEventCodec.js";
import type { FollowerStatus } from "../../src/ingest/FollowerStatus.js";
import { eventually } from "./serviceHarness.js";

export type ChainEvent = { readonly subject: string; readonly seq: number } & (
  | { readonly kind: "block"; readonly block: ChainBlock }
  | { readonly kind: "reorg"; readonly reorg: ChainReorg }
);

/** Reads CHAIN_EVENTS from the start into an array that keeps growing, until `stop`. */
export const collectChainEvents = async (nc: NatsConnection) => {
  const events: Array<ChainEvent> = [];
  // The service creates the stream as it starts: wait for it.
  const deadline = Date.now() + 15_000;
  const consumer = await (async () => {
    for (;;) {
      try {
        return await jetstream(nc).consumers.get("CHAIN_EVENTS");
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  })();
  const messages = await consumer.consume();
  const assembler = new ChainEventAssembler();
  void (async () => {
    for await (const message of messages) {
      const data = assembler.push(message);
      if (data === undefined) continue;
      const base = { subject: message.subject, seq: message.seq };
      events.push(
        message.subject.endsWith(".reorg")
          ? { ...base, kind: "reorg", reorg: data as ChainReorg }
          : { ...base, kind: "block", block: data as ChainBlock },
      );
    }
  })();
  return { events, stop: () => messages.close() };
};

export const blocksOf = (events: ReadonlyArray<ChainEvent>) =>
  events.flatMap((event) => (event.kind === "block" ? [event.block] : []));

/** The numbers of chain `chainId`'s blocks above `after` among `events`, in the order published. */
export const blockNumbersOf = (events: ReadonlyArray<ChainEvent>, chainId: number, after: number) =>
  blocksOf(events)
    .filter((block) => block.chain_id === chainId && block.number > after)
    .map((block) => block.number);

/**
 * Waits until the follower has published through `head` and the collector holds that block of
 * `chainId` too: a follower counts a block processed once it is published, and the collector's copy
 * comes a moment later.
 */
export const collectedThrough = async (
  status: FollowerStatus,
  events: ReadonlyArray<ChainEvent>,
  chainId: number,
  head: number,
  timeoutMs: number,
): Promise<void> => {
  await eventually(
    async () =>
      status.processed === head &&
      blocksOf(events).some((block) => block.chain_id === chainId && block.number === head),
    timeoutMs,
    "the follower at the new head",
  );
};
