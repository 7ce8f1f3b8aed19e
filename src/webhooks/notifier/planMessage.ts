import type { JsMsg, jetstreamManager } from "@nats-io/jetstream";
import { type ChainRegistry, supportsFamily } from "../../chains/ChainRegistry.js";
import type { ChainBlock, ChainReorg } from "../../domain/ChainBlock.js";
import { isChainEvent } from "../../domain/chainEventShape.js";
import {
  chainEventsReader,
  decodeChainEvent,
  readSplitEvent,
  SplitPart,
  UnreadableChainEvent,
} from "../../ingest/chainEventCodec.js";
import type { PromiseLog } from "../../lib/promiseLog.js";
import type { NotifierPhases } from "../../metrics/Metrics.js";
import type { RecheckFlag } from "../../nats/recheckFlag.js";
import { type Verdict, Verdicts } from "../../nats/runConsumer.js";
import type { QueuedDelivery } from "../outbox/QueuedDelivery.js";
import { EventSlots } from "./enqueue.js";
import type { IdleWatch } from "./IdleWatch.js";
import type { NotifierCursor } from "./NotifierCursor.js";
import { notifierConsumerGone } from "./notifierConsumer.js";
import {
  NOTHING,
  type NotifierPlan,
  nothingToPlan,
  nothingToPlanAnywhere,
  type PlanDeps,
  planBlock,
  planReorg,
} from "./planNotifications.js";
import type { plannerRecords } from "./plannerRecords.js";
import { RECORDS_KEPT_MS } from "./plannerRecords.js";

/** What the notifier's planning of a message hands its results to. */
export interface PlannerPorts {
  readonly registry: ChainRegistry;
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
  /** Told where the time of each chain event planned went (the process's metrics). */
  readonly observe?: ((phases: NotifierPhases) => void) | undefined;
}

/** What one notifier's planning keeps across messages. */
export interface PlannerParts {
  readonly ports: PlannerPorts;
  /** The planning dependencies, their records read through `records`. */
  readonly deps: PlanDeps;
  readonly records: ReturnType<typeof plannerRecords>;
  readonly idle: IdleWatch;
  /** The chains whose blocks are planned. */
  readonly chainIds: ReadonlyArray<number>;
  readonly cursor: NotifierCursor;
}

/** One run of the consuming loop, as a message's planning sees it. */
export interface PlanningSession {
  readonly jsm: Awaited<ReturnType<typeof jetstreamManager>>;
  /** The creation time of CHAIN_EVENTS, which delivery keys start with. */
  readonly epochMs: number;
  /** Set when the connection was lost since the consumer was looked up. */
  readonly recheck: RecheckFlag;
  readonly log: PromiseLog;
}

/** Planning that takes longer (slow RPC) tells the server it is still working this often, ms. */
const WORKING_EVERY_MS = 3_000;

/**
 * The whole event of a message, `undefined` when it is planned at another of its parts. A split
 * event is planned at its last part, its other parts read from the stream by sequence (the shared
 * consumer may hand them to other nodes, which skip them). One whose parts are not named
 * (chainEventCodec), written before they were, is planned at its first part, as notifiers of that
 * version plan it (nodes not yet upgraded share the consumer), with the parts after it read
 * consecutively: one not stored yet fails the planning, which is tried again shortly.
 */
const wholeEvent = async (
  jsm: Awaited<ReturnType<typeof jetstreamManager>>,
  message: JsMsg,
): Promise<unknown | undefined> => {
  const decoded = decodeChainEvent(message);
  if (!(decoded instanceof SplitPart)) return decoded;
  const unnamed = decoded.event === undefined;
  if (unnamed ? decoded.part !== 0 : !decoded.isLast) return undefined;
  const read = chainEventsReader(jsm);
  return readSplitEvent(decoded, async (seq) => {
    const part = await read(seq);
    if (part === null && unnamed)
      throw new Error(`part at stream sequence ${seq} of a split chain event is missing`);
    return part;
  });
};

/**
 * The notifier's planning of each message handed out, in stream order: plans its deliveries and
 * records and answers the verdict to settle it with (`finish("idle")` when the notifier goes idle
 * with it); throws when the consumer was made again meanwhile.
 */
export const makeMessagePlanner = (parts: PlannerParts) => {
  const { ports, deps, records, idle, chainIds, cursor } = parts;
  return async (message: JsMsg, session: PlanningSession): Promise<Verdict> => {
    const { jsm, epochMs, recheck, log } = session;
    if (recheck.since() && (await notifierConsumerGone(jsm, cursor.consumedCreated))) {
      // Handed out by a consumer made again meanwhile, perhaps past blocks still to plan: this session
      // ends. Not offered back: another notifier could then plan it while this one, replacing that
      // consumer, plans it again; a consumer joined instead hands it out again after ack_wait.
      throw new Error("the notifier's consumer was made again while it was looked up again");
    }
    // One message in flight at most: every one before it is planned (or given up).
    cursor.nextSeq = message.seq;
    // Planned here right after the previous message: no other node queued anything in between.
    const firstSends = records.follows(message.seq);
    records.receiving(message.seq);
    const known = ports.registry.byId.get(Number(message.subject.split(".")[1]));
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
        cursor.nextSeq = message.seq + 1;
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
      if (plan.deliveries.length > 0) sentUnstored = await ports.enqueue(plan.deliveries, { firstSends });
      const queued = performance.now();
      if (change !== undefined) await deps.records.write(change, await eventsWritten);
      records.planned(message.seq);
      if (!unread)
        ports.observe?.({
          plan: (planned - planStarted) / 1000,
          deliveries: (queued - planned) / 1000,
          records: (performance.now() - queued) / 1000,
        });
    } catch (error) {
      // Delivered without being stored, they would be sent again when the event is planned again.
      if (sentUnstored.length > 0) await ports.markDelivered(sentUnstored).catch(() => undefined);
      // An RPC or storage failure: the block is offered again shortly (to this node or another), and
      // no sooner than held records expire: a records write that failed here may have been stored.
      records.failed();
      log.warning("notifier could not plan a chain event; retrying", error);
      return Verdicts.nak(RECORDS_KEPT_MS);
    } finally {
      clearInterval(working);
    }
    cursor.nextSeq = message.seq + 1;
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
};
