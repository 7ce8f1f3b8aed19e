import { type ActorOptions, type AnyActorLogic, createActor } from "xstate";
import { Lru } from "../../lib/Lru.js";
import { LINGER_MS, QueueDoorbell } from "../delivery/QueueDoorbell.js";
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
 * Deleted webhook ids remembered. Clients create and delete webhooks as often as
 * they like, so remembering every one would grow without end.
 */
export const DELETED_REMEMBERED = 10_000;

type WebhookActor = ReturnType<typeof createActor<typeof webhookMachine>>;

const eventFor = (actor: WebhookActor, version: WebhookVersion) => {
  const wasActive = actor.getSnapshot().context.record.active;
  if (version.record.active === wasActive) return { type: "webhook.updated" as const, ...version };
  return {
    type: version.record.active ? ("webhook.activate" as const) : ("webhook.deactivate" as const),
    ...version,
  };
};

/**
 * The running webhook actors of this process, one per webhook, by id: started, sent newer
 * versions, stopped for good when their webhook is deleted. No I/O of its own, so it is tested
 * without a broker; WebhookSupervisor.ts feeds it from the records bucket.
 */
export class ActorRegistry {
  readonly #actors = new Map<string, WebhookActor>();
  // Ids are never reused, so once deleted an id stays deleted; this stops a late read restarting it.
  // Late reads come within moments of the deletion, so the most recent deletions are enough.
  readonly #deleted = new Lru<string, true>(DELETED_REMEMBERED);
  // A run whose queue is empty waits here a while for the next delivery (rung by notify).
  readonly #doorbell = new QueueDoorbell();
  readonly #machine;
  readonly #clock: SupervisorClock | WebhookClock;
  readonly #delivery: DeliveryPorts | undefined;

  constructor(clock: SupervisorClock | WebhookClock, delivery: DeliveryPorts | undefined) {
    this.#clock = clock;
    this.#delivery = delivery;
    this.#machine =
      delivery === undefined
        ? webhookMachine
        : webhookMachine.provide({
            actors: {
              deliver: deliverQueue(delivery, (id, signal) => this.#doorbell.wait(id, LINGER_MS, signal)),
            },
          });
  }

  /** Starts the webhook's actor, or sends it the event for this newer version. */
  observe(version: WebhookVersion): void {
    const id = version.record.id;
    if (this.#deleted.peek(id) !== undefined) return;
    const actor = this.#actors.get(id);
    if (actor === undefined) {
      const clock = this.#clock;
      const timers = "setTimeout" in clock ? { clock } : {};
      const started = createActor(this.#machine, { input: { ...version, clock }, ...timers });
      this.#actors.set(id, started.start());
      return;
    }
    if (version.revision > actor.getSnapshot().context.revision) actor.send(eventFor(actor, version));
  }

  /** The webhook is deleted: stop its actor for good (and drop its outbox entries, once). */
  forget(id: string): void {
    if (this.#deleted.peek(id) === undefined) this.#delivery?.deleted(id);
    this.#deleted.set(id, true);
    const actor = this.#actors.get(id);
    if (actor === undefined) return;
    actor.send({ type: "webhook.delete" });
    actor.stop();
    this.#actors.delete(id);
  }

  /** The actor's lifecycle state (`active`, `inactive`), or `undefined` when none runs. */
  stateOf(id: string): string | undefined {
    const actor = this.#actors.get(id);
    return actor === undefined ? undefined : lifecycleOf(actor.getSnapshot().value);
  }

  /** The version the actor holds, or `undefined` when none runs. */
  versionOf(id: string): WebhookVersion | undefined {
    const context = this.#actors.get(id)?.getSnapshot().context;
    return context === undefined ? undefined : { record: context.record, revision: context.revision };
  }

  /** Each running actor's webhook id and the KV revision of the version it holds. */
  *revisions(): Iterable<readonly [id: string, revision: number]> {
    for (const [id, actor] of this.#actors) yield [id, actor.getSnapshot().context.revision];
  }

  get size(): number {
    return this.#actors.size;
  }

  get deletedRemembered(): number {
    return this.#deleted.size;
  }

  /** Tells the webhook's actor that its outbox queue has new deliveries. */
  notify(id: string): void {
    // A run waiting for its next delivery reads the queue at once, without a machine event.
    if (this.#doorbell.ring(id)) return;
    const actor = this.#actors.get(id);
    if (actor === undefined) return;
    // A run already told to read the queue again needs no second telling (one event per delivery was a visible cost).
    const snapshot = actor.getSnapshot();
    if (snapshot.context.recheck && snapshot.matches({ active: { delivery: "sending" } })) return;
    actor.send({ type: "delivery.enqueued" });
  }

  /** Stops every actor (the process is shutting down; nothing is deleted). */
  stopAll(): void {
    for (const actor of this.#actors.values()) actor.stop();
    this.#actors.clear();
  }
}
