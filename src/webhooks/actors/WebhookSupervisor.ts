import { Bucket, type KV, KvWatchInclude } from "@nats-io/kv";
import { Context, Effect, Exit, Layer, Option, Scope } from "effect";
import { type ActorOptions, type AnyActorLogic, type AnyActorRef, createActor } from "xstate";
import { Lru } from "../../lib/Lru.js";
import { leaderReads } from "../../nats/leaderReads.js";
import { streamTail } from "../../nats/streamTail.js";
import { untilWatchFallsBehind, WatchProgress } from "../../nats/WatchProgress.js";
import { backoffUpTo } from "../../runtime/retrying.js";
import { LINGER_MS, QueueDoorbell } from "../delivery/QueueDoorbell.js";
import { HOOK_PREFIX, HOOKS_FILTER } from "../store/kvKeys.js";
import { decodeRecord } from "../WebhookRecord.js";
import {
  deliverQueue,
  lifecycleOf,
  type SendPorts,
  type WebhookClock,
  type WebhookVersion,
  webhookMachine,
} from "./webhookMachine.js";

/** The outbox side of delivery, given to every actor (see src/webhooks/delivery/Dispatcher.ts). */
export interface DeliveryPorts extends SendPorts {
  /** The webhook was deleted: drop its outbox entries. */
  readonly deleted: (webhookId: string) => void;
}

/** A clock for both reading the time and XState's timers (SimulatedClock is one). */
export type SupervisorClock = WebhookClock & NonNullable<ActorOptions<AnyActorLogic>["clock"]>;

/**
 * Runs one webhook actor (webhookMachine) per stored webhook in this process.
 * KV is the source of truth: at start the supervisor starts an actor for every
 * stored webhook, then follows a watch on `hook.>`, so a change made by any API
 * worker reaches the actors of every worker. The handlers also report their own
 * writes (`observe`, `forget`) so this worker's actors change at once; events
 * carry the KV revision, so the watch and the handler never apply a change twice
 * or out of order.
 */
export class WebhookSupervisor extends Context.Tag("app/webhooks/WebhookSupervisor")<
  WebhookSupervisor,
  {
    /** Starts the webhook's actor, or sends it the event for this newer version. */
    readonly observe: (version: WebhookVersion) => void;
    /** The webhook is deleted: stop its actor for good. */
    readonly forget: (id: string) => void;
    /** The actor's lifecycle state (`active`, `inactive`), or `undefined` when none runs. */
    readonly stateOf: (id: string) => string | undefined;
    /** The version the actor holds, or `undefined` when none runs. */
    readonly versionOf: (id: string) => WebhookVersion | undefined;
    /** How many actors run. */
    readonly size: () => number;
    /** How many deleted ids are remembered (at most DELETED_REMEMBERED). */
    readonly deletedRemembered: () => number;
    /** Tells the webhook's actor that its outbox queue has new deliveries. */
    readonly notify: (id: string) => void;
  }
>() {}

type WebhookActor = ReturnType<typeof createActor<typeof webhookMachine>>;

/**
 * Deleted webhook ids remembered. Clients create and delete webhooks as often as
 * they like, so remembering every one would grow without end.
 */
export const DELETED_REMEMBERED = 10_000;

const eventFor = (actor: WebhookActor, version: WebhookVersion) => {
  const wasActive = actor.getSnapshot().context.record.active;
  if (version.record.active === wasActive) return { type: "webhook.updated" as const, ...version };
  return {
    type: version.record.active ? ("webhook.activate" as const) : ("webhook.deactivate" as const),
    ...version,
  };
};

const decode = Option.liftThrowable(decodeRecord);

/** Starts actors for every stored webhook, then follows the bucket until the scope closes. */
export const layer = (
  kv: KV,
  clock: SupervisorClock | WebhookClock = { now: () => Date.now() },
  delivery?: DeliveryPorts,
  /**
   * How often the stream's leader is asked whether the records' watch missed a change (it can
   * stall without ending when a nats-server is lost); undefined: never. The user needs
   * STREAM.INFO and STREAM.MSG.GET on the bucket's stream.
   */
  watchCheckMs?: number,
): Layer.Layer<WebhookSupervisor> =>
  Layer.scoped(
    WebhookSupervisor,
    Effect.gen(function* () {
      const actors = new Map<string, WebhookActor>();
      // Ids are never reused, so once deleted an id stays deleted; this stops a late read restarting it.
      // Late reads come within moments of the deletion, so the most recent deletions are enough.
      const deleted = new Lru<string, true>(DELETED_REMEMBERED);
      const timers = "setTimeout" in clock ? { clock } : {};
      // A run whose queue is empty waits here a while for the next delivery (rung by notify).
      const doorbell = new QueueDoorbell();
      const machine =
        delivery === undefined
          ? webhookMachine
          : webhookMachine.provide({
              actors: {
                deliver: deliverQueue(delivery, (id, signal) => doorbell.wait(id, LINGER_MS, signal)),
              },
            });

      const observe = (version: WebhookVersion) => {
        const id = version.record.id;
        if (deleted.peek(id) !== undefined) return;
        const actor = actors.get(id);
        if (actor === undefined) {
          const started = createActor(machine, { input: { ...version, clock }, ...timers });
          actors.set(id, started.start());
          return;
        }
        if (version.revision > actor.getSnapshot().context.revision) actor.send(eventFor(actor, version));
      };

      const forget = (id: string) => {
        if (deleted.peek(id) === undefined) delivery?.deleted(id);
        deleted.set(id, true);
        const actor = actors.get(id);
        if (actor === undefined) return;
        actor.send({ type: "webhook.delete" });
        actor.stop();
        actors.delete(id);
      };

      const onEntry = (key: string, operation: string, revision: number, text: () => string) => {
        const id = key.slice(HOOK_PREFIX.length);
        if (operation !== "PUT") return forget(id);
        const record = decode(text());
        if (Option.isSome(record)) observe({ record: record.value, revision });
      };

      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          for (const actor of actors.values()) actor.stop();
          actors.clear();
        }),
      );
      const tail =
        kv instanceof Bucket && watchCheckMs !== undefined
          ? streamTail(kv.jsm, kv.stream, `${kv.prefix}.`)
          : undefined;

      /**
       * Watches the records, then reads what is stored (a change landing in between is seen at
       * least once), for the life of the enclosing scope. Answers where the watch began in the
       * bucket's stream. After a stalled watch (`reconcile`), an actor whose record is no longer
       * listed, that holds no version newer than that point, and whose key the stream's leader
       * finds deleted, was deleted meanwhile: the watch that should have said so showed nothing.
       * A record written after that point may be missing from the listing only because it came
       * later, so its actor stays. Not followBucket (whose new watch would replay deletions
       * itself): its watch replays the deletion marker of every webhook ever deleted, and each
       * would purge that webhook's outbox keys again at every start.
       */
      const follow = (reconcile: boolean) =>
        Effect.gen(function* () {
          const watch = yield* Effect.tryPromise(() =>
            kv.watch({ key: HOOKS_FILTER, include: KvWatchInclude.UpdatesOnly }),
          );
          yield* Effect.addFinalizer(() => Effect.sync(() => watch.stop()));
          const startedAfter = tail === undefined ? 0 : yield* Effect.tryPromise(() => tail.lastSeq());
          const progress = new WatchProgress(startedAfter);
          yield* Effect.forkScoped(
            Effect.promise(async () => {
              for await (const entry of watch) {
                progress.showed(entry.revision);
                onEntry(entry.key, entry.operation, entry.revision, () => entry.string());
              }
            }),
          );
          const keys = yield* Effect.tryPromise(async () => {
            const found: Array<string> = [];
            for await (const key of await kv.keys(HOOKS_FILTER)) found.push(key);
            return found;
          });
          const entries = yield* Effect.forEach(keys, (key) => Effect.tryPromise(() => kv.get(key)), {
            concurrency: 16,
          });
          for (const entry of entries) {
            if (entry !== null) onEntry(entry.key, entry.operation, entry.revision, () => entry.string());
          }
          if (reconcile) {
            const listed = new Set(keys.map((key) => key.slice(HOOK_PREFIX.length)));
            const unlisted = [...actors]
              .filter(
                ([id, actor]) => !listed.has(id) && actor.getSnapshot().context.revision <= startedAfter,
              )
              .map(([id]) => id);
            // A listing can end early without an error (its consumer lost with a server), and
            // forgetting a live webhook would also drop its queued deliveries: each one missing
            // is read from the stream's leader first, and stopped only if that finds it deleted.
            const leader = leaderReads(kv);
            yield* Effect.forEach(
              unlisted,
              (id) =>
                Effect.tryPromise(() => leader.get(`${HOOK_PREFIX}${id}`)).pipe(
                  Effect.flatMap((entry) =>
                    Effect.sync(() =>
                      entry === null || entry.operation !== "PUT"
                        ? forget(id)
                        : onEntry(entry.key, entry.operation, entry.revision, () => entry.string()),
                    ),
                  ),
                  // Unreadable now: the actor stays; the next stall check or change settles it.
                  Effect.ignore,
                ),
              { concurrency: 16, discard: true },
            );
          }
          return progress;
        });

      // The first read is the layer's readiness; a stalled watch is followed again (every
      // watchCheckMs, the stream's leader is asked whether a record change went unshown).
      // A failed attempt (a JetStream call timing out while the bucket's leader is elected) is
      // closed, its watch stopped, and tried again: start-up waits on it, and must not die of it.
      const firstAttempt = Effect.gen(function* () {
        const scope = yield* Scope.make();
        const progress = yield* Scope.extend(follow(false), scope).pipe(
          Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause))),
        );
        return { scope, progress };
      });
      const { scope: first, progress: firstProgress } = yield* firstAttempt.pipe(
        Effect.tapError((error) =>
          Effect.logWarning("webhook records: the first read failed; retrying", error),
        ),
        Effect.retry(backoffUpTo("10 seconds")),
        Effect.orDie,
      );
      yield* Effect.addFinalizer((exit) => Scope.close(first, exit));
      if (tail !== undefined && watchCheckMs !== undefined) {
        const untilStalled = (progress: WatchProgress) =>
          Effect.gen(function* () {
            const unshown = yield* untilWatchFallsBehind(progress, tail, HOOKS_FILTER, watchCheckMs);
            yield* Effect.logWarning(
              `webhook records: the watch has not shown message ${unshown} of its stream for ${watchCheckMs} ms; watching again`,
            );
          });
        const followAgain = Effect.scoped(
          Effect.gen(function* () {
            const progress = yield* follow(true);
            yield* untilStalled(progress);
          }),
        ).pipe(
          // Any failure, a defect included, is retried: the loop must outlive it.
          Effect.catchAllCause((cause) =>
            Effect.zipRight(
              Effect.logWarning("webhook records: could not follow them again; retrying", cause),
              Effect.sleep(watchCheckMs),
            ),
          ),
        );
        yield* Effect.forkScoped(
          Effect.zipRight(
            Effect.zipRight(untilStalled(firstProgress), Scope.close(first, Exit.void)),
            Effect.forever(followAgain),
          ),
        );
      }
      yield* Effect.logDebug(`webhook supervisor started ${actors.size} actors`);

      const actorOf = (id: string): AnyActorRef | undefined => actors.get(id);
      return {
        observe,
        forget,
        stateOf: (id: string) => {
          const actor = actorOf(id);
          return actor === undefined ? undefined : lifecycleOf(actor.getSnapshot().value);
        },
        versionOf: (id: string) => {
          const context = actors.get(id)?.getSnapshot().context;
          return context === undefined ? undefined : { record: context.record, revision: context.revision };
        },
        size: () => actors.size,
        deletedRemembered: () => deleted.size,
        notify: (id: string) => {
          // A run waiting for its next delivery reads the queue at once, without a machine event.
          if (doorbell.ring(id)) return;
          const actor = actors.get(id);
          if (actor === undefined) return;
          // A run already told to read the queue again needs no second telling (one event per delivery was a visible cost).
          const snapshot = actor.getSnapshot();
          if (snapshot.context.recheck && snapshot.matches({ active: { delivery: "sending" } })) return;
          actor.send({ type: "delivery.enqueued" });
        },
      } as const;
    }),
  );
