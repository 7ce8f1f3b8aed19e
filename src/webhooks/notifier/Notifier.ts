import { type JsMsg, jetstream, jetstreamManager } from "@nats-io/jetstream";
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
import { type PromiseLog, promiseLog } from "../../lib/promiseLog.js";
import type { NotifierPhases } from "../../metrics/Metrics.js";
import { PULL_EXPIRES_MS } from "../../nats/pullOptions.js";
import { type RecheckFlag, recheckFlag } from "../../nats/recheckFlag.js";
import { consumeEach, restarting, type Verdict, Verdicts } from "../../nats/runConsumer.js";
import type { QueuedDelivery } from "../outbox/QueuedDelivery.js";
import { EventSlots } from "./enqueue.js";
import { IdleWatch } from "./IdleWatch.js";
import {
  type ConsumerStart,
  NOTIFIER_DURABLE,
  notifierConsumerGone,
  openNotifierConsumer,
  releaseNotifierConsumer,
} from "./notifierConsumer.js";
import {
  NOTHING,
  type NotifierPlan,
  nothingToPlan,
  nothingToPlanAnywhere,
  type PlanDeps,
  planBlock,
  planReorg,
} from "./planNotifications.js";
import { plannerRecords, RECORDS_KEPT_MS } from "./plannerRecords.js";

export { NOTIFIER_DURABLE } from "./notifierConsumer.js";

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
  /** How long nothing to plan lets the shared consumer go, ms (IdleWatch.ts; tests shorten it). */
  readonly idlePauseMs?: number;
  /** How far before it saw a watched address a resuming notifier starts the consumer, ms (RESUME_LOOKBACK_MS). */
  readonly resumeLookbackMs?: number;
  /** Told where the time of each chain event planned went (the process's metrics). */
  readonly observe?: ((phases: NotifierPhases) => void) | undefined;
}

/** Planning that takes longer (slow RPC) tells the server it is still working this often, ms. */
const WORKING_EVERY_MS = 3_000;
/** How often a notifier that let the shared consumer go looks for a watched address again, ms. */
const PAUSED_CHECK_MS = 100;
/**
 * How far before it saw a watched address a resuming notifier starts the consumer, ms: beyond the
 * check's period and the address book's lag, and beyond any difference between this host's clock
 * and nats-server's, which stamps the messages the start time is compared with.
 */
const RESUME_LOOKBACK_MS = 5_000;

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

/** How one run of the consuming loop ended. */
type SessionEnd = "idle" | "consumer gone";

/**
 * The notifier: consumes CHAIN_EVENTS through the shared durable consumer,
 * plans each block's deliveries (or a reorg's retractions), writes them to the
 * replicated outbox (all at once) and then the chain's block records to the
 * replicated `webhook_blocks` bucket, and only then acknowledges the message;
 * the owner of each webhook's partition sees the new deliveries through its
 * watch. A crash before the ack redelivers the block: if its records were
 * written the replay plans nothing, and otherwise it names the same outbox
 * keys, which are kept as they are.
 *
 * With nothing to plan for a while (no address watched, no block recorded),
 * it lets the shared consumer go once no block waits in it, and waits for a
 * watched address, then makes a new one from a few seconds before it saw it:
 * until then every block would have been acknowledged unread, a round trip
 * per block for nothing. A notifier whose consumer another one let go while it
 * still had something to plan makes it again at the first block it has not
 * seen planned (openNotifierConsumer). The client's reconnecting, or its pulling again after
 * missed heartbeats, may hide that the consumer was let go and made again meanwhile, so the first
 * message after either is taken only once the consumer is known to be the same one.
 */
export const runNotifier = (options: NotifierOptions) => {
  const records = plannerRecords(options.deps.records, options.deps.now);
  const deps: PlanDeps = { ...options.deps, records: records.store };
  const idle = new IdleWatch(options.deps.now, options.idlePauseMs);
  const chainIds = options.registry.chains
    .filter((chain) => supportsFamily(chain, "subscriptions"))
    .map((chain) => chain.chain_id);
  /** The first stream sequence this notifier has not seen planned; kept across runs of the loop. */
  let nextSeq: number | undefined;
  /** Since when this notifier has let the consumer go, waiting for something to plan. */
  let pausedAt: number | undefined;
  /** Resuming after a pause: the time from which a consumer it creates starts. */
  let resumeAt: number | undefined;
  /** The creation time of the consumer this notifier consumed from last. */
  let consumedCreated: string | undefined;
  /** Where a consumer this notifier creates starts (openNotifierConsumer). */
  const start = (): ConsumerStart =>
    nextSeq !== undefined ? { seq: nextSeq } : resumeAt !== undefined ? { time: resumeAt } : undefined;

  /**
   * Plans one message handed out: the verdict to settle it with, `finish("idle")` when the notifier
   * goes idle with it; throws when the consumer was made again meanwhile.
   */
  const planOne = async (
    message: JsMsg,
    jsm: Awaited<ReturnType<typeof jetstreamManager>>,
    epochMs: number,
    recheck: RecheckFlag,
    log: PromiseLog,
  ): Promise<Verdict> => {
    if (recheck.since() && (await notifierConsumerGone(jsm, consumedCreated))) {
      // Handed out by a consumer made again meanwhile, perhaps past blocks still to plan: this session
      // ends. Not offered back: another notifier could then plan it while this one, replacing that
      // consumer, plans it again; a consumer joined instead hands it out again after ack_wait.
      throw new Error("the notifier's consumer was made again while it was looked up again");
    }
    // One message in flight at most: every one before it is planned (or given up).
    nextSeq = message.seq;
    // Planned here right after the previous message: no other node queued anything in between.
    const firstSends = records.follows(message.seq);
    records.receiving(message.seq);
    const known = options.registry.byId.get(Number(message.subject.split(".")[1]));
    const chain = known !== undefined && supportsFamily(known, "subscriptions") ? known : undefined;
    let plan: NotifierPlan = NOTHING;
    let sentUnstored: ReadonlyArray<QueuedDelivery> = [];
    let unread = false;
    const working = setInterval(() => message.working(), WORKING_EVERY_MS);
    try {
      unread = chain === undefined || (await nothingToPlan(deps, chain.chain_id));
      const data = unread ? undefined : await wholeEvent(jsm, message);
      if (data !== undefined && !isChainEvent(message.subject, data)) {
        // Redelivering a message no consumer can apply would loop forever: drop it and say so.
        nextSeq = message.seq + 1;
        records.failed();
        log.error("chain event cannot be planned; dropped", {
          subject: message.subject,
          seq: message.seq,
          reason: data instanceof UnreadableChainEvent ? data.reason : "not a chain event's shape",
        });
        return Verdicts.term;
      }
      const slots = new EventSlots(epochMs, message.seq);
      const planStarted = performance.now();
      if (chain !== undefined && data !== undefined)
        plan = message.subject.endsWith(".reorg")
          ? await planReorg(deps, chain, data as ChainReorg, slots)
          : await planBlock(deps, chain, data as ChainBlock, slots);
      const planned = performance.now();
      // The block's events are stored while its first sends are out, rather than after them (a
      // round trip per block with nothing else to do): until the list names them, which waits
      // for the sends, a replay reads none of them.
      const change = plan.records;
      const eventsWritten =
        change?.added === undefined ? undefined : deps.records.writeEvents(change.chainId, change.added);
      eventsWritten?.catch(() => undefined);
      if (plan.deliveries.length > 0) sentUnstored = await options.enqueue(plan.deliveries, { firstSends });
      const queued = performance.now();
      if (change !== undefined) await deps.records.write(change, await eventsWritten);
      records.planned(message.seq);
      if (!unread)
        options.observe?.({
          plan: (planned - planStarted) / 1000,
          deliveries: (queued - planned) / 1000,
          records: (performance.now() - queued) / 1000,
        });
    } catch (error) {
      // Delivered without being stored, they would be sent again when the event is planned again.
      if (sentUnstored.length > 0) await options.markDelivered(sentUnstored).catch(() => undefined);
      // An RPC or storage failure: the block is offered again shortly (to this node or another), and
      // no sooner than held records expire: a records write that failed here may have been stored.
      records.failed();
      log.warning("notifier could not plan a chain event; retrying", error);
      return Verdicts.nak(RECORDS_KEPT_MS);
    } finally {
      clearInterval(working);
    }
    nextSeq = message.seq + 1;
    if (!unread) idle.busy();
    else if (idle.unread() && (await nothingToPlanAnywhere(deps, chainIds))) {
      // Going idle, the ack is confirmed: the consumer is let go only once nothing is in flight.
      return Verdicts.finish("idle");
    }
    // A plain ack, not one confirmed by a round trip: the server hands out the next block only once
    // it has this ack (one block in flight), and an ack lost with a connection only replays the
    // block after ack_wait, which plans nothing new (its records are written).
    return Verdicts.ack;
  };

  /** One run of the consuming loop on the shared consumer (joined, or created at `nextSeq`). */
  const session = (jsm: Awaited<ReturnType<typeof jetstreamManager>>, epochMs: number) =>
    Effect.gen(function* () {
      // From before the consumer is looked up: a disconnect from then on is checked for at the next message.
      const recheck = yield* recheckFlag(options.nc);
      const consumed = yield* Effect.tryPromise(() => openNotifierConsumer(jsm, start(), consumedCreated));
      consumedCreated = consumed.created;
      nextSeq = consumed.next;
      // Made again, the consumer may have handed blocks to other notifiers in between: the lists held are read again.
      records.failed();
      const consumer = yield* Effect.tryPromise(() =>
        jetstream(options.nc).consumers.get("CHAIN_EVENTS", NOTIFIER_DURABLE),
      );
      const messages = yield* Effect.acquireRelease(
        Effect.tryPromise(() =>
          // A consumer deleted (let go by an idle notifier) ends the loop rather than being pulled in vain.
          consumer.consume({ max_messages: 8, expires: PULL_EXPIRES_MS, abort_on_missing_resource: true }),
        ),
        (messages) => Effect.promise(() => messages.close().then(() => undefined)),
      );
      yield* recheck.watch(messages);
      const log = yield* promiseLog;
      return yield* consumeEach("notifier", messages, (message) =>
        Effect.tryPromise(() => planOne(message, jsm, epochMs, recheck, log)),
      ).pipe(
        Effect.as<SessionEnd>("idle"),
        Effect.catchAll((error) =>
          // Gone rather than failed: another notifier let it go.
          Effect.flatMap(
            Effect.tryPromise(() => notifierConsumerGone(jsm, consumedCreated)),
            (gone): Effect.Effect<SessionEnd, unknown> =>
              gone ? Effect.succeed("consumer gone") : Effect.fail(error),
          ),
        ),
      );
    }).pipe(Effect.scoped);

  /** Waits, while paused, until an address is watched: blocks from then on can match. */
  const untilWatched = Effect.repeat(
    Effect.sync(() => deps.watchedAddresses() > 0),
    { until: (watched) => watched, schedule: Schedule.spaced(PAUSED_CHECK_MS) },
  );

  return Effect.gen(function* () {
    const jsm = yield* Effect.tryPromise(() => jetstreamManager(options.nc));
    // Delivery keys start with the stream's creation time: a stream made again (a devnet restart) restarts its sequences.
    const epochMs = new Date(
      (yield* Effect.tryPromise(() => jsm.streams.info("CHAIN_EVENTS"))).created,
    ).getTime();
    /** Paused since `at` (taken before the consumer is let go: a block published once it is gone comes after). */
    const pause = (at: number) =>
      Effect.sync(() => {
        pausedAt = at;
        nextSeq = undefined;
        resumeAt = undefined;
      });
    /** Lets the consumer go if it is quiet, and then pauses; whether it did. */
    const letGo = Effect.gen(function* () {
      const at = options.deps.now();
      const released = yield* Effect.tryPromise(() => releaseNotifierConsumer(jsm));
      if (released) yield* pause(at);
      return released;
    });
    for (;;) {
      // Started with nothing to plan anywhere: no block would be read, so none is taken.
      if (
        pausedAt === undefined &&
        nextSeq === undefined &&
        (yield* Effect.tryPromise(() => nothingToPlanAnywhere(deps, chainIds)))
      ) {
        yield* letGo;
      }
      if (pausedAt !== undefined) {
        yield* untilWatched;
        // From a little before the address was seen, so a block published right after a webhook was
        // made is planned; not before the pause, as the consumer let go had handed out every block.
        resumeAt = Math.max(pausedAt, options.deps.now() - (options.resumeLookbackMs ?? RESUME_LOOKBACK_MS));
        pausedAt = undefined;
        idle.busy();
      }
      const end: SessionEnd = yield* session(jsm, epochMs);
      if (end === "idle") {
        // Not let go (blocks still wait in it, a catch-up): consumed again, and tried again only after
        // as long idle, rather than at every block, each try a request and a new pull.
        if (!(yield* letGo)) idle.busy();
      } else if (yield* Effect.tryPromise(() => nothingToPlanAnywhere(deps, chainIds)))
        yield* pause(options.deps.now());
    }
  }).pipe(restarting("webhook notifier"));
};
