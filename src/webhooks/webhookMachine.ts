import { assign, setup } from "xstate";
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
  | { readonly type: "webhook.delete" };

/**
 * One webhook's lifecycle (spec section 3). `active` and `inactive` mirror the
 * record's `active` flag; `deleted` is final. `active` holds a `delivery`
 * region so delivery (queueing, sending, waiting to retry) lives inside it and
 * stops on its own when the webhook is deactivated or deleted.
 *
 * The machine keeps no timers of its own, and its state is always rebuilt
 * from the KV record (never from a persisted snapshot), so nothing depends on
 * an `after` surviving a restore; delivery must likewise keep its deadlines as
 * timestamps in persisted data and derive its delays from `clock`.
 */
export const webhookMachine = setup({
  types: {
    context: {} as WebhookActorContext,
    input: {} as WebhookActorInput,
    events: {} as WebhookEvent,
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
  context: ({ input }) => ({ ...input, statusChangedAt: input.clock.now() }),
  initial: "starting",
  states: {
    starting: {
      always: [{ guard: "startsActive", target: "active" }, { target: "inactive" }],
    },
    active: {
      type: "parallel",
      states: {
        delivery: {
          initial: "idle",
          states: {
            // The next issue adds `sending` and `waitingToRetry` here.
            idle: {},
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
