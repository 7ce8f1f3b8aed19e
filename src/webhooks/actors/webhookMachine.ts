import { assign, fromPromise, setup } from "xstate";
import type { AttemptEnd } from "../outbox/Outbox.js";
import type { QueuedDelivery } from "../outbox/QueuedDelivery.js";
import type { WebhookRecord } from "../WebhookRecord.js";

/** Where the machine reads the time. XState's SimulatedClock satisfies it, so tests control time. */
export interface WebhookClock {
  /** Milliseconds since the epoch. */
  readonly now: () => number;
}

/** A webhook as the actor knows it: the stored record at a KV revision. */
export interface WebhookVersion {
  readonly record: WebhookRecord;
  /** KV revision of `hook.<id>`; events carrying an older or equal one are stale and ignored. */
  readonly revision: number;
}

export interface WebhookActorInput extends WebhookVersion {
  readonly clock: WebhookClock;
}

export interface WebhookActorContext extends WebhookVersion {
  readonly clock: WebhookClock;
  /** When the actor last entered `active` or `inactive` (ms, from `clock`). */
  readonly statusChangedAt: number;
  /** The delivery at the head of this webhook's outbox queue, while it waits to retry. */
  readonly head: QueuedDelivery | undefined;
  /** A delivery was queued while `deliver` ran: run again when it ends, even if it found nothing. */
  readonly recheck: boolean;
}

/** Input of one attempt: the head delivery to the webhook as it is now. */
export interface AttemptInput {
  readonly record: WebhookRecord;
  readonly delivery: QueuedDelivery;
}

/** The outbox side of sending, as the `deliver` actor uses it (src/webhooks/delivery/Dispatcher.ts). */
export interface SendPorts {
  /** The webhook's next queued delivery, if this process sends its partition. */
  readonly loadHead: (webhookId: string) => Promise<QueuedDelivery | undefined>;
  /** One attempt, recorded in the outbox before it resolves. */
  readonly attempt: (input: AttemptInput) => Promise<AttemptEnd>;
}

/** Input of the `deliver` actor. */
export interface DeliverInput {
  readonly webhookId: string;
  /** The record as the actor holds it now (a settings change during a run reaches the next attempt). */
  readonly record: () => WebhookRecord;
  readonly now: () => number;
}

/** Why a `deliver` run stopped: nothing is queued, the head waits for its retry time, or a 410. */
export type DeliverEnd =
  | { readonly kind: "idle" }
  | { readonly kind: "waiting"; readonly head: QueuedDelivery }
  | { readonly kind: "gone" };

/**
 * Waits, while the webhook's queue is empty, for a delivery to be queued (true)
 * or until it gives up or `signal` aborts (false). The supervisor's doorbell
 * (src/webhooks/delivery/QueueDoorbell.ts).
 */
export type WaitForQueued = (webhookId: string, signal: AbortSignal) => Promise<boolean>;

/**
 * The `deliver` actor: sends the webhook's queue in order while its head is
 * due, one attempt at a time, and stops at the first delivery that must wait
 * (a retry, whose time the machine then waits for), at a 410, or when nothing
 * is queued (with `waitForQueued`, once nothing was queued for a while). One
 * invocation covers a whole run of deliveries, so the machine's transitions
 * are paid per run rather than per delivery. Stopped with its state (a
 * deactivation or deletion), it starts no further attempt; one in flight ends
 * and is recorded.
 */
export const deliverQueue = (ports: SendPorts, waitForQueued?: WaitForQueued) =>
  fromPromise<DeliverEnd, DeliverInput>(async ({ input, signal }) => {
    for (;;) {
      if (signal.aborted) return { kind: "idle" };
      const head = await ports.loadHead(input.webhookId);
      if (head === undefined) {
        if (waitForQueued === undefined) return { kind: "idle" };
        const woken = waitForQueued(input.webhookId, signal);
        // Queued between the read and the wait's start: its wake-up went to the machine, not the wait.
        if ((await ports.loadHead(input.webhookId)) !== undefined) continue;
        if (await woken) continue;
        return { kind: "idle" };
      }
      if (head.next_attempt_at > input.now()) return { kind: "waiting", head };
      if (signal.aborted) return { kind: "idle" };
      const end = await ports.attempt({ record: input.record(), delivery: head });
      if (end.kind === "gone") return end;
      if (end.kind === "retry")
        return {
          kind: "waiting",
          head: { ...head, attempts: head.attempts + 1, next_attempt_at: end.at },
        };
    }
  });

/**
 * Lifecycle events, dotted per house style. The supervisor sends one per KV
 * change: `webhook.activate` / `webhook.deactivate` when `active` flips,
 * `webhook.updated` for any other change, `webhook.delete` when the record is gone.
 */
export type WebhookEvent =
  | ({ readonly type: "webhook.activate" } & WebhookVersion)
  | ({ readonly type: "webhook.deactivate" } & WebhookVersion)
  | ({ readonly type: "webhook.updated" } & WebhookVersion)
  | { readonly type: "webhook.delete" }
  /** The notifier queued a delivery for this webhook (or an operator re-queued dead letters). */
  | { readonly type: "delivery.enqueued" };

/** Delay before reading the outbox again after a storage error, ms. */
export const RELOAD_AFTER_MS = 1_000;

/**
 * One webhook's lifecycle (spec section 3). `active` and `inactive` mirror the
 * record's `active` flag; `deleted` is final. `active` holds a `delivery`
 * region so delivery (queueing, sending, waiting to retry) lives inside it and
 * stops on its own when the webhook is deactivated or deleted.
 *
 * Delivery (`active.delivery`) sends the webhook's outbox queue in order, one
 * delivery at a time: `sending` runs the `deliver` actor (deliverQueue), which
 * sends every due delivery in turn (each attempt recorded in the outbox before
 * the next starts) until the queue is empty (`idle`) or the head must wait
 * (`waitingToRetry`, until the head's stored `next_attempt_at`). While the head
 * is failing, later deliveries wait behind it. After a 410 the region stays
 * `suspended` until the deactivation it caused arrives from KV.
 *
 * State is always rebuilt from the KV record and the outbox (never from a
 * persisted snapshot): the retry delay is computed from the stored
 * `next_attempt_at` and `clock` each time `waitingToRetry` is entered, so a
 * restart resumes the schedule instead of depending on an `after` surviving a
 * restore (statelyai/xstate#5331). The `deliver` actor is provided by the
 * supervisor (`machine.provide`, with deliverQueue); the default sends nothing.
 */
export const webhookMachine = setup({
  types: {
    context: {} as WebhookActorContext,
    input: {} as WebhookActorInput,
    events: {} as WebhookEvent,
  },
  actors: {
    deliver: fromPromise<DeliverEnd, DeliverInput>(async () => ({ kind: "idle" })),
  },
  delays: {
    retryDelay: ({ context }) => Math.max(0, (context.head?.next_attempt_at ?? 0) - context.clock.now()),
  },
  guards: {
    startsActive: ({ context }) => context.record.active,
    isNewer: ({ context, event }) => "revision" in event && event.revision > context.revision,
  },
  actions: {
    adoptVersion: assign(({ context, event }) =>
      "revision" in event ? { record: event.record, revision: event.revision } : context,
    ),
    stampStatusChange: assign({ statusChangedAt: ({ context }) => context.clock.now() }),
  },
}).createMachine({
  id: "webhook",
  context: ({ input }) => ({ ...input, statusChangedAt: input.clock.now(), head: undefined, recheck: false }),
  initial: "starting",
  states: {
    starting: {
      always: [{ guard: "startsActive", target: "active" }, { target: "inactive" }],
    },
    active: {
      type: "parallel",
      states: {
        delivery: {
          initial: "sending",
          states: {
            sending: {
              entry: assign({ recheck: false }),
              invoke: {
                src: "deliver",
                input: ({ context, self }) => ({
                  webhookId: context.record.id,
                  record: () => self.getSnapshot().context.record,
                  now: () => context.clock.now(),
                }),
                onDone: [
                  {
                    guard: ({ event }) => event.output.kind === "waiting",
                    target: "waitingToRetry",
                    actions: assign({
                      head: ({ event }) => (event.output.kind === "waiting" ? event.output.head : undefined),
                    }),
                  },
                  { guard: ({ event }) => event.output.kind === "gone", target: "suspended" },
                  // A delivery landed after the run last read the queue: run again.
                  { guard: ({ context }) => context.recheck, target: "sending", reenter: true },
                  { target: "idle", actions: assign({ head: undefined }) },
                ],
                onError: { target: "waitingToReload" },
              },
              on: { "delivery.enqueued": { actions: assign({ recheck: true }) } },
            },
            idle: { on: { "delivery.enqueued": { target: "sending" } } },
            waitingToRetry: { after: { retryDelay: { target: "sending" } } },
            waitingToReload: { after: { [RELOAD_AFTER_MS]: { target: "sending" } } },
            // 410: nothing more is sent until the webhook is reactivated (which re-enters `active`).
            suspended: {},
          },
        },
      },
      on: {
        "webhook.deactivate": {
          guard: "isNewer",
          target: "inactive",
          actions: ["adoptVersion", "stampStatusChange"],
        },
      },
    },
    inactive: {
      on: {
        "webhook.activate": {
          guard: "isNewer",
          target: "active",
          actions: ["adoptVersion", "stampStatusChange"],
        },
      },
    },
    deleted: { type: "final" },
  },
  on: {
    // Already in the requested state (or a plain settings change): just adopt the newer record.
    "webhook.activate": { guard: "isNewer", actions: "adoptVersion" },
    "webhook.deactivate": { guard: "isNewer", actions: "adoptVersion" },
    "webhook.updated": { guard: "isNewer", actions: "adoptVersion" },
    "webhook.delete": { target: ".deleted" },
  },
});

/** The lifecycle state name of a snapshot value: `active`, `inactive`, `deleted` (or `starting`). */
export const lifecycleOf = (value: unknown): string =>
  typeof value === "string" ? value : (Object.keys(value as Record<string, unknown>)[0] ?? "unknown");
