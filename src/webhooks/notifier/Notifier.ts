import { AckPolicy, DeliverPolicy, type JsMsg, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Schedule } from "effect";
import { type ChainRegistry, supportsFamily } from "../../chains/ChainRegistry.js";
import type { ChainBlock, ChainReorg } from "../../domain/ChainBlock.js";
import { isChainEvent } from "../../domain/chainEventShape.js";
import {
  ChainEventAssembler,
  MAX_PARTS,
  PART_HEADER,
  PARTS_HEADER,
  UnreadableChainEvent,
} from "../../ingest/chainEventCodec.js";
import { PULL_EXPIRES_MS } from "../../nats/pullOptions.js";
import type { QueuedDelivery } from "../delivery/QueuedDelivery.js";
import { EventSlots } from "./enqueue.js";
import {
  NOTHING,
  type NotifierPlan,
  nothingToPlan,
  type PlanDeps,
  planBlock,
  planReorg,
} from "./planNotifications.js";
import { plannerRecords, RECORDS_KEPT_MS } from "./plannerRecords.js";

/** The durable consumer every API process's notifier shares: each block is planned by exactly one of them. */
export const NOTIFIER_DURABLE = "webhook-notifier";

export interface NotifierOptions {
  readonly nc: NatsConnection;
  readonly registry: ChainRegistry;
  readonly deps: PlanDeps;
  /**
   * Queues one event's deliveries (Outbox.queueEvent): each is delivered or written to the
   * replicated outbox when this resolves, with those delivered without being stored; keys
   * already there are kept (a replayed event). `firstSends`: the stream's previous message
   * was planned here.
   */
  readonly enqueue: (
    deliveries: ReadonlyArray<QueuedDelivery>,
    options: { readonly firstSends: boolean },
  ) => Promise<ReadonlyArray<QueuedDelivery>>;
  /** Writes done markers for deliveries delivered unstored whose event is to be planned again. */
  readonly markDelivered: (deliveries: ReadonlyArray<QueuedDelivery>) => Promise<void>;
}

/** How long a notifier may hold a block unacknowledged before another takes it (a crashed node's block). */
const ACK_WAIT_NS = 10_000_000_000;
/** Planning that takes longer (slow RPC) tells the server it is still working this often, ms. */
const WORKING_EVERY_MS = 3_000;

const ensureConsumer = (nc: NatsConnection) =>
  Effect.tryPromise(async () => {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.consumers.info("CHAIN_EVENTS", NOTIFIER_DURABLE).catch(() => undefined);
    if (info === undefined)
      await jsm.consumers.add("CHAIN_EVENTS", {
        durable_name: NOTIFIER_DURABLE,
        ack_policy: AckPolicy.Explicit,
        // New blocks only: webhooks cannot match blocks from before the service ran.
        deliver_policy: DeliverPolicy.New,
        // One block in flight across all notifiers: blocks and reorgs are planned in stream order.
        max_ack_pending: 1,
        ack_wait: ACK_WAIT_NS,
      });
    else if (info.config.ack_wait !== ACK_WAIT_NS)
      await jsm.consumers.update("CHAIN_EVENTS", NOTIFIER_DURABLE, { ack_wait: ACK_WAIT_NS });
    // Delivery keys start with the stream's creation time: a stream made again (a devnet restart) restarts its sequences.
    const stream = await jsm.streams.info("CHAIN_EVENTS");
    return { jsm, epochMs: new Date(stream.created).getTime() };
  });

/**
 * The whole event of a message: a plain or deflated one as is; for a split
 * one, its first part plus the following parts read from the stream by
 * sequence (the shared consumer may hand the other parts to other nodes, which
 * skip them). `undefined` for a part other than the first.
 */
const wholeEvent = async (
  jsm: Awaited<ReturnType<typeof jetstreamManager>>,
  message: JsMsg,
): Promise<unknown | undefined> => {
  const parts = Number(message.headers?.get(PARTS_HEADER) || "1");
  const part = Number(message.headers?.get(PART_HEADER) || "0");
  const assembler = new ChainEventAssembler();
  // The assembler answers malformed part headers itself, without reading further messages.
  if (!(parts > 1 && parts <= MAX_PARTS)) return assembler.push(message);
  if (part !== 0) return undefined;
  let data = assembler.push(message);
  for (let i = 1; i < parts && data === undefined; i++) {
    const next = await jsm.streams.getMessage("CHAIN_EVENTS", { seq: message.seq + i });
    if (next === null) throw new Error(`part ${i} of a split chain event is missing`);
    data = assembler.push({ subject: next.subject, data: next.data, headers: next.header });
  }
  return data;
};

/**
 * The notifier: consumes CHAIN_EVENTS through the shared durable consumer,
 * plans each block's deliveries (or a reorg's retractions), writes them to the
 * replicated outbox (all at once) and then the chain's block records to the
 * replicated `webhook_blocks` bucket, and only then acknowledges the message;
 * the owner of each webhook's partition sees the new deliveries through its
 * watch. A crash before the ack redelivers the block: if its records were
 * written the replay plans nothing, and otherwise it names the same outbox
 * keys, which are kept as they are.
 */
export const runNotifier = (options: NotifierOptions) =>
  Effect.gen(function* () {
    const { jsm, epochMs } = yield* ensureConsumer(options.nc);
    const consumer = yield* Effect.tryPromise(() =>
      jetstream(options.nc).consumers.get("CHAIN_EVENTS", NOTIFIER_DURABLE),
    );
    const messages = yield* Effect.tryPromise(() =>
      consumer.consume({ max_messages: 8, expires: PULL_EXPIRES_MS }),
    );
    yield* Effect.addFinalizer(() => Effect.promise(() => messages.close().then(() => undefined)));
    yield* Effect.tryPromise(async () => {
      const records = plannerRecords(options.deps.records, options.deps.now);
      const deps: PlanDeps = { ...options.deps, records: records.store };
      for await (const message of messages) {
        // Planned here right after the previous message: no other node queued anything in between.
        const firstSends = records.follows(message.seq);
        records.receiving(message.seq);
        const known = options.registry.byId.get(Number(message.subject.split(".")[1]));
        const chain = known !== undefined && supportsFamily(known, "subscriptions") ? known : undefined;
        let plan: NotifierPlan = NOTHING;
        let sentUnstored: ReadonlyArray<QueuedDelivery> = [];
        const working = setInterval(() => message.working(), WORKING_EVERY_MS);
        try {
          const data =
            chain === undefined || (await nothingToPlan(deps, chain.chain_id))
              ? undefined
              : await wholeEvent(jsm, message);
          if (data !== undefined && !isChainEvent(message.subject, data)) {
            // Redelivering a message no consumer can apply would loop forever: drop it and say so.
            message.term();
            records.failed();
            await Effect.runPromise(
              Effect.logError("chain event cannot be planned; dropped", {
                subject: message.subject,
                seq: message.seq,
                reason: data instanceof UnreadableChainEvent ? data.reason : "not a chain event's shape",
              }),
            );
            continue;
          }
          const slots = new EventSlots(epochMs, message.seq);
          if (chain !== undefined && data !== undefined)
            plan = message.subject.endsWith(".reorg")
              ? await planReorg(deps, chain, data as ChainReorg, slots)
              : await planBlock(deps, chain, data as ChainBlock, slots);
          // The block's events are stored while its first sends are out, rather than after them (a
          // round trip per block with nothing else to do): until the list names them, which waits
          // for the sends, a replay reads none of them.
          const change = plan.records;
          const eventsWritten =
            change?.added === undefined ? undefined : deps.records.writeEvents(change.chainId, change.added);
          eventsWritten?.catch(() => undefined);
          if (plan.deliveries.length > 0)
            sentUnstored = await options.enqueue(plan.deliveries, { firstSends });
          if (change !== undefined) await deps.records.write(change, await eventsWritten);
          records.planned(message.seq);
        } catch (error) {
          // Delivered without being stored, they would be sent again when the event is planned again.
          if (sentUnstored.length > 0) await options.markDelivered(sentUnstored).catch(() => undefined);
          // An RPC or storage failure: the block is offered again shortly (to this node or another), and
          // no sooner than held records expire: a records write that failed here may have been stored.
          message.nak(RECORDS_KEPT_MS);
          records.failed();
          await Effect.runPromise(
            Effect.logWarning("notifier could not plan a chain event; retrying", error),
          );
          continue;
        } finally {
          clearInterval(working);
        }
        // A plain ack, not one confirmed by a round trip: the server hands out the next block only once
        // it has this ack (one block in flight), and an ack lost with a connection only replays the
        // block after ack_wait, which plans nothing new (its records are written).
        message.ack();
      }
    });
  }).pipe(
    Effect.scoped,
    Effect.tapErrorCause((cause) => Effect.logWarning("webhook notifier stopped; restarting", cause)),
    Effect.retry(Schedule.spaced("1 second")),
  );
