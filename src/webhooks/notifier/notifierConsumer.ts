import { AckPolicy, type ConsumerInfo, DeliverPolicy, type JetStreamManager } from "@nats-io/jetstream";

/** The durable consumer every API process's notifier shares: each block is planned by exactly one of them. */
export const NOTIFIER_DURABLE = "webhook-notifier";

/** How long a notifier may hold a block unacknowledged before another takes it (a crashed node's block). */
const ACK_WAIT_NS = 10_000_000_000;

/**
 * Where a notifier creating the consumer starts it: at a stream sequence (where it was), at a
 * time (resuming after a pause), or, with neither, at the stream's end (a first start).
 */
export type ConsumerStart = { readonly seq: number } | { readonly time: number } | undefined;

const deliverFrom = (start: ConsumerStart) =>
  start === undefined
    ? // New blocks only: webhooks cannot match blocks from before the notifier knew of them.
      { deliver_policy: DeliverPolicy.New }
    : "seq" in start
      ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start.seq }
      : { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(start.time).toISOString() };

const config = (start: ConsumerStart) => ({
  durable_name: NOTIFIER_DURABLE,
  ack_policy: AckPolicy.Explicit,
  ...deliverFrom(start),
  // One block in flight across all notifiers: blocks and reorgs are planned in stream order.
  max_ack_pending: 1,
  ack_wait: ACK_WAIT_NS,
});

/** The JetStream API's error code for a consumer that does not exist. */
const CONSUMER_NOT_FOUND = 10014;

const notFound = (error: unknown) => (error as { readonly code?: unknown }).code === CONSUMER_NOT_FOUND;

/** The shared consumer, or `undefined` if there is none; fails if the server cannot say. */
const sharedConsumer = (jsm: JetStreamManager): Promise<ConsumerInfo | undefined> =>
  jsm.consumers.info("CHAIN_EVENTS", NOTIFIER_DURABLE).catch((error: unknown) => {
    if (notFound(error)) return undefined;
    throw error;
  });

/** Whether the consumer made at `created` is gone (let go by an idle notifier, perhaps made again since); fails if the server cannot say. */
export const notifierConsumerGone = async (jsm: JetStreamManager, created: string | undefined) => {
  const held = await sharedConsumer(jsm);
  return held === undefined || held.created !== created;
};

/** The first stream sequence the consumer described by `info` has not seen planned: with one message in flight at most, the last delivered one unless it is acknowledged. */
const nextToPlan = (info: ConsumerInfo) => info.delivered.stream_seq + 1 - Math.min(1, info.num_ack_pending);

/** What a notifier consumes from: the consumer's creation time (which tells a consumer made again from the one it had) and the first sequence it will hand out. */
export interface OpenedConsumer {
  readonly created: string;
  readonly next: number;
}

const opened = (info: ConsumerInfo): OpenedConsumer => ({ created: info.created, next: nextToPlan(info) });

/**
 * Joins the shared consumer, or creates it at `start` when there is none. A notifier whose
 * consumer is gone while it still had something to plan (`start` a sequence, `had` the creation
 * time of the consumer it had) makes it again at the first stream sequence it has not seen
 * planned, so no block in between is skipped. If another notifier made it first at a sequence,
 * that one is joined: its maker had seen every block before its start planned. One made from the
 * stream's end or from a time (a notifier starting, or resuming after a pause, may not yet know
 * what this one was planning) may have skipped blocks this one had still to plan, so it is
 * replaced: a block planned twice plans nothing the second time (its records are written), a
 * block skipped is lost.
 */
export const openNotifierConsumer = async (
  jsm: JetStreamManager,
  start: ConsumerStart,
  had?: string,
): Promise<OpenedConsumer> => {
  const held = await sharedConsumer(jsm);
  const mayHaveSkipped =
    held !== undefined &&
    start !== undefined &&
    "seq" in start &&
    had !== undefined &&
    held.created !== had &&
    held.config.deliver_policy !== DeliverPolicy.StartSequence;
  if (held !== undefined && !mayHaveSkipped) {
    if (held.config.ack_wait !== ACK_WAIT_NS)
      await jsm.consumers.update("CHAIN_EVENTS", NOTIFIER_DURABLE, { ack_wait: ACK_WAIT_NS });
    return opened(held);
  }
  if (mayHaveSkipped) await deleteConsumer(jsm);
  const created = await jsm.consumers
    .add("CHAIN_EVENTS", config(start))
    // Made by another notifier in the meantime (at another start): that one is used.
    .catch(() => jsm.consumers.info("CHAIN_EVENTS", NOTIFIER_DURABLE));
  return opened(created);
};

/** Deletes the shared consumer; one already gone is no failure. */
const deleteConsumer = async (jsm: JetStreamManager) => {
  try {
    await jsm.consumers.delete("CHAIN_EVENTS", NOTIFIER_DURABLE);
  } catch (error) {
    if (!notFound(error)) throw error;
  }
};

/**
 * Lets the shared consumer go (a notifier that has had nothing to plan for a while): the blocks
 * published until a webhook watches an address again are never handed to a notifier, as each
 * would be acknowledged unread. Only a quiet one (no block waiting or in flight): one still
 * handing out blocks may be feeding a notifier whose address book is ahead of this one's, so
 * `false`, and the notifier goes on consuming. Fails if the consumer may still be there: one left
 * behind would hand out, once something is watched, every block published meanwhile. A notifier
 * that was still planning when it went makes it again where it was (openNotifierConsumer).
 */
export const releaseNotifierConsumer = async (jsm: JetStreamManager): Promise<boolean> => {
  const held = await sharedConsumer(jsm);
  if (held !== undefined && (held.num_pending > 0 || held.num_ack_pending > 0)) return false;
  await deleteConsumer(jsm);
  return true;
};
