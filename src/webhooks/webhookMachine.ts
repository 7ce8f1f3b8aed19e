import { assign, fromPromise, setup } from "xstate";
import type { AttemptEnd } from "./delivery/Outbox.js";
import type { QueuedDelivery } from "./delivery/QueuedDelivery.js";
import type { WebhookRecord } from "./WebhookRecord.js";

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
  /** The delivery at the head of this webhook's outbox queue, while one is being sent or waits to retry. */
  readonly head: QueuedDelivery | undefined;
}

/** Input of the `attempt` actor: one attempt of the head delivery to the webhook as it is now. */
export interface AttemptInput {
  readonly record: WebhookRecord;
  readonly delivery: QueuedDelivery;
}

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
 * delivery at a time: `loading` reads the head, `sending` runs one attempt
 * (which records its outcome in the outbox before it resolves), and
 * `waitingToRetry` waits until the head's stored `next_attempt_at`. While the
 * head is failing, later deliveries wait behind it. After a 410 the region
 * stays `suspended` until the deactivation it caused arrives from KV.
 *
 * State is always rebuilt from the KV record and the outbox (never from a
 * persisted snapshot): the retry delay is computed from the stored
 * `next_attempt_at` and `clock` each time `waitingToRetry` is entered, so a
 * restart resumes the schedule instead of depending on an `after` surviving a
 * restore (statelyai/xstate#5331). The `loadHead` and `attempt` actors are
 * provided by the supervisor (`machine.provide`); the defaults here do nothing.
 */
export const webhookMachine = setup({
  types: {
    context: {} as WebhookActorContext,
    input: {} as WebhookActorInput,
    events: {} as WebhookEvent,
  },
  actors: {
    loadHead: fromPromise<QueuedDelivery | undefined, { readonly webhookId: string }>(async () => undefined),
    attempt: fromPromise<AttemptEnd, AttemptInput>(async () => ({ kind: "delivered" })),
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
  context: ({ input }) => ({ ...input, statusChangedAt: input.clock.now(), head: undefined }),
  initial: "starting",
  states: {
    starting: {
      always: [{ guard: "startsActive", target: "active" }, { target: "inactive" }],
    },
    active: {
      type: "parallel",
      states: {
        delivery: {
          initial: "loading",
          states: {
            loading: {
              invoke: {
                src: "loadHead",
                input: ({ context }) => ({ webhookId: context.record.id }),
                onDone: [
                  {
                    guard: ({ event }) => event.output === undefined,
                    target: "idle",
                    actions: assign({ head: undefined }),
                  },
                  {
                    guard: ({ context, event }) =>
                      (event.output?.next_attempt_at ?? 0) <= context.clock.now(),
                    target: "sending",
                    actions: assign({ head: ({ event }) => event.output }),
                  },
                  { target: "waitingToRetry", actions: assign({ head: ({ event }) => event.output }) },
                ],
                onError: { target: "waitingToReload" },
              },
              // A delivery landed while the head was being read: read again.
              on: { "delivery.enqueued": { target: "loading", reenter: true } },
            },
            idle: { on: { "delivery.enqueued": { target: "loading" } } },
            sending: {
              invoke: {
                src: "attempt",
                input: ({ context }) => ({ record: context.record, delivery: context.head! }),
                onDone: [
                  {
                    guard: ({ event }) => event.output.kind === "retry",
                    target: "waitingToRetry",
                    actions: assign({
                      head: ({ context, event }) =>
                        event.output.kind === "retry" && context.head !== undefined
                          ? {
                              ...context.head,
                              attempts: context.head.attempts + 1,
                              next_attempt_at: event.output.at,
                            }
                          : context.head,
                    }),
                  },
                  { guard: ({ event }) => event.output.kind === "gone", target: "suspended" },
                  { target: "loading" },
                ],
                onError: { target: "waitingToReload" },
              },
            },
            waitingToRetry: { after: { retryDelay: { target: "sending" } } },
            waitingToReload: { after: { [RELOAD_AFTER_MS]: { target: "loading" } } },
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
