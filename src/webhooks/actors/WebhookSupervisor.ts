import type { KV, KvEntry } from "@nats-io/kv";
import { Context, Effect, Layer, Option } from "effect";
import { followBucket } from "../../nats/followBucket.js";
import { HOOK_PREFIX, HOOKS_FILTER } from "../store/kvKeys.js";
import { decodeRecord } from "../WebhookRecord.js";
import { ActorRegistry, type DeliveryPorts, type SupervisorClock } from "./ActorRegistry.js";
import type { WebhookClock, WebhookVersion } from "./webhookMachine.js";

export { DELETED_REMEMBERED, type DeliveryPorts, type SupervisorClock } from "./ActorRegistry.js";

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

const decode = Option.liftThrowable(decodeRecord);

/** A stored record (or its deletion) to the registry. */
const applyEntry = (actors: ActorRegistry) => (entry: KvEntry) => {
  const id = entry.key.slice(HOOK_PREFIX.length);
  if (entry.operation !== "PUT") return actors.forget(id);
  const record = decode(entry.string());
  if (Option.isSome(record)) actors.observe({ record: record.value, revision: entry.revision });
};

/**
 * Starts actors for every stored webhook, then follows the bucket until the scope closes; ready
 * once every stored webhook has its actor.
 *
 * The records are listed, not replayed: a replaying watch would show the deletion marker of every
 * webhook ever deleted, and each would purge that webhook's outbox keys again at every start. After
 * a watch that ended or stalled, an actor whose record the new listing lacks is settled by the
 * stream's leader (followBucket's Reconcile): stopped if deleted there, kept if it holds a version
 * newer than where the new watch began.
 */
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
      const actors = new ActorRegistry(clock, delivery);
      yield* Effect.addFinalizer(() => Effect.sync(() => actors.stopAll()));
      const ready = yield* followBucket(
        kv,
        {
          key: HOOKS_FILTER,
          stored: {
            by: "listing",
            reconcile: {
              held: () =>
                Array.from(
                  actors.revisions(),
                  ([id, revision]) => [`${HOOK_PREFIX}${id}`, revision] as const,
                ),
              vanished: (key) => actors.forget(key.slice(HOOK_PREFIX.length)),
            },
          },
          ...(watchCheckMs === undefined ? {} : { stallCheckMs: watchCheckMs }),
        },
        applyEntry(actors),
      );
      yield* ready;
      yield* Effect.logDebug(`webhook supervisor started ${actors.size} actors`);
      return {
        observe: (version: WebhookVersion) => actors.observe(version),
        forget: (id: string) => actors.forget(id),
        stateOf: (id: string) => actors.stateOf(id),
        versionOf: (id: string) => actors.versionOf(id),
        size: () => actors.size,
        deletedRemembered: () => actors.deletedRemembered,
        notify: (id: string) => actors.notify(id),
      } as const;
    }),
  );
