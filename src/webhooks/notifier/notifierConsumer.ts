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

/** Whether the shared consumer is gone (let go by an idle notifier); fails if the server cannot say. */
export const notifierConsumerGone = (jsm: JetStreamManager): Promise<boolean> =>
  jsm.consumers.info("CHAIN_EVENTS", NOTIFIER_DURABLE).then(
    () => false,
    (error: unknown) => {
      if (notFound(error)) return true;
      throw error;
    },
  );

/** The first stream sequence the consumer described by `info` has not seen planned: with one message in flight at most, the last delivered one unless it is acknowledged. */
const nextToPlan = (info: ConsumerInfo) => info.delivered.stream_seq + 1 - Math.min(1, info.num_ack_pending);

/**
 * Joins the shared consumer, or creates it at `start` when there is none: after another notifier
 * let it go while this one was planning, at the first stream sequence this one has not seen
 * planned, so no block in between is skipped. If another notifier created it first, that one is
 * joined. Answers the first sequence the consumer will hand out.
 */
export const openNotifierConsumer = async (jsm: JetStreamManager, start: ConsumerStart) => {
  const held = await jsm.consumers.info("CHAIN_EVENTS", NOTIFIER_DURABLE).catch(() => undefined);
  if (held !== undefined) {
    if (held.config.ack_wait !== ACK_WAIT_NS)
      await jsm.consumers.update("CHAIN_EVENTS", NOTIFIER_DURABLE, { ack_wait: ACK_WAIT_NS });
    return nextToPlan(held);
  }
  const created = await jsm.consumers
    .add("CHAIN_EVENTS", config(start))
    // Created by another notifier in the meantime (at another start): that one is used.
    .catch(() => jsm.consumers.info("CHAIN_EVENTS", NOTIFIER_DURABLE));
  return nextToPlan(created);
};

/**
 * Lets the shared consumer go (a notifier that has had nothing to plan for a while): the blocks
 * published until a webhook watches an address again are never handed to a notifier, as each
 * would be acknowledged unread. A notifier still planning when it goes creates it again where it
 * was (openNotifierConsumer). Fails if the consumer may still be there: one left behind would
 * hand out, once something is watched, every block published meanwhile.
 */
export const releaseNotifierConsumer = async (jsm: JetStreamManager): Promise<void> => {
  try {
    await jsm.consumers.delete("CHAIN_EVENTS", NOTIFIER_DURABLE);
  } catch (error) {
    // Gone already: another notifier let it go first.
    if (!notFound(error)) throw error;
  }
};
