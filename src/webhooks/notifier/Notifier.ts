import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Schedule } from "effect";
import { supportsFamily } from "../../chains/ChainRegistry.js";
import { promiseLog } from "../../lib/promiseLog.js";
import { PULL_EXPIRES_MS } from "../../nats/pullOptions.js";
import { recheckFlag } from "../../nats/recheckFlag.js";
import { consumeEach, restarting } from "../../nats/runConsumer.js";
import { IdleWatch } from "./IdleWatch.js";
import { NotifierCursor } from "./NotifierCursor.js";
import {
  NOTIFIER_DURABLE,
  notifierConsumerGone,
  openNotifierConsumer,
  releaseNotifierConsumer,
} from "./notifierConsumer.js";
import { makeMessagePlanner, type PlannerPorts } from "./planMessage.js";
import { nothingToPlanAnywhere, type PlanDeps } from "./planNotifications.js";
import { plannerRecords } from "./plannerRecords.js";

export { NOTIFIER_DURABLE } from "./notifierConsumer.js";

export interface NotifierOptions extends PlannerPorts {
  readonly nc: NatsConnection;
  readonly deps: PlanDeps;
  /** How long nothing to plan lets the shared consumer go, ms (IdleWatch.ts; tests shorten it). */
  readonly idlePauseMs?: number;
  /** How far before it saw a watched address a resuming notifier starts the consumer, ms (RESUME_LOOKBACK_MS). */
  readonly resumeLookbackMs?: number;
}

/** How often a notifier that let the shared consumer go looks for a watched address again, ms. */
const PAUSED_CHECK_MS = 100;
/**
 * How far before it saw a watched address a resuming notifier starts the consumer, ms: beyond the
 * check's period and the address book's lag, and beyond any difference between this host's clock
 * and nats-server's, which stamps the messages the start time is compared with.
 */
const RESUME_LOOKBACK_MS = 5_000;

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
  const cursor = new NotifierCursor();
  const planMessage = makeMessagePlanner({ ports: options, deps, records, idle, chainIds, cursor });
  /** One run of the consuming loop on the shared consumer (joined, or created at `nextSeq`). */
  const session = (jsm: Awaited<ReturnType<typeof jetstreamManager>>, epochMs: number) =>
    Effect.gen(function* () {
      // From before the consumer is looked up: a disconnect from then on is checked for at the next message.
      const recheck = yield* recheckFlag(options.nc);
      const consumed = yield* Effect.tryPromise(() =>
        openNotifierConsumer(jsm, cursor.start(), cursor.consumedCreated),
      );
      cursor.consumedCreated = consumed.created;
      cursor.nextSeq = consumed.next;
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
        Effect.tryPromise(() => planMessage(message, { jsm, epochMs, recheck, log })),
      ).pipe(
        Effect.as<SessionEnd>("idle"),
        Effect.catchAll((error) =>
          // Gone rather than failed: another notifier let it go.
          Effect.flatMap(
            Effect.tryPromise(() => notifierConsumerGone(jsm, cursor.consumedCreated)),
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
        cursor.pause(at);
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
        cursor.pausedAt === undefined &&
        cursor.nextSeq === undefined &&
        (yield* Effect.tryPromise(() => nothingToPlanAnywhere(deps, chainIds)))
      ) {
        yield* letGo;
      }
      if (cursor.pausedAt !== undefined) {
        yield* untilWatched;
        // From a little before the address was seen, so a block published right after a webhook was
        // made is planned; not before the pause, as the consumer let go had handed out every block.
        cursor.resume(options.deps.now(), options.resumeLookbackMs ?? RESUME_LOOKBACK_MS);
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
