import { Effect, Either } from "effect";
import type { PromiseLog } from "../../lib/promiseLog.js";
import type { UsageEvent } from "../../usage/UsageRecorder.js";
import type { DeliveryPorts } from "../actors/WebhookSupervisor.js";
import type { Outbox } from "../outbox/Outbox.js";
import { revealOnce } from "../secrets/revealedSecrets.js";
import { modifyOwned } from "../store/hookRecords.js";
import type { StoreBuckets } from "../store/StoreBuckets.js";
import type { HostAllowList } from "../targets/hostAllowList.js";
import { WebhookRecord } from "../WebhookRecord.js";
import { attemptDelivery } from "./attemptDelivery.js";
import { DeliveryCharges } from "./DeliveryCharges.js";
import { makeHttpSender } from "./HttpSender.js";

export interface DispatcherOptions {
  readonly outbox: Outbox;
  readonly buckets: StoreBuckets;
  readonly allowedHosts: HostAllowList;
  /** Delays between attempts, ms. */
  readonly schedule: ReadonlyArray<number>;
  readonly cuPerEvent: number;
  /** Deadline of one attempt, ms. */
  readonly timeoutMs: number;
  readonly record: (event: UsageEvent) => void;
  readonly now?: () => number;
  /** Where the dispatcher says what an operator should know (the service's logger). */
  readonly log: PromiseLog;
}

/** Usage endpoint name of delivered events, per webhook type (`webhooks.activities`, ...). */
export const usageEndpoint = (type: string) => `webhooks.${type}`;

/**
 * The delivery side the webhook actors use: the replicated outbox (each
 * process sends only the partitions it owns; an attempt outside them is
 * refused before anything is sent), one undici sender shared by every webhook
 * (a Pool per receiver origin), CU metering of delivered events, and the 410
 * rule (the webhook's KV record is set inactive, which every node's actor then follows).
 */
export const makeDispatcher = (options: DispatcherOptions) => {
  const outbox = options.outbox;
  const sender = makeHttpSender({
    allowedHosts: options.allowedHosts,
    totalTimeoutMs: options.timeoutMs,
    connectTimeoutMs: Math.min(5_000, options.timeoutMs),
  });
  const now = options.now ?? Date.now;
  const sealer = revealOnce(options.buckets.sealer);
  const charges = new DeliveryCharges((d) =>
    options.record({
      teamId: d.team_id,
      keyId: "webhooks",
      endpoint: usageEndpoint(d.type),
      cu: options.cuPerEvent * d.events,
      failed: false,
    }),
  );
  const markGone = (record: WebhookRecord) =>
    Effect.runPromise(
      modifyOwned(options.buckets, record.team_id, record.id, (current) =>
        Either.right(
          current.active
            ? new WebhookRecord({ ...current, active: false, updated_at: new Date(now()).toISOString() })
            : undefined,
        ),
      ).pipe(
        Effect.asVoid,
        Effect.catchAll((error) =>
          Effect.sync(() =>
            options.log.warning(
              `webhook ${record.id} answered 410 but could not be deactivated: ${error.message}`,
            ),
          ),
        ),
      ),
    );
  const ports: DeliveryPorts = {
    loadHead: (webhookId) => outbox.head(webhookId),
    attempt: ({ record, delivery }) =>
      outbox.partitions
        .attempt(record.id, () =>
          attemptDelivery(
            {
              outbox,
              sender,
              schedule: options.schedule,
              now,
              random: Math.random,
              charges,
              markGone,
              sealer,
            },
            record,
            delivery,
          ),
        )
        .catch(async (error: unknown) => {
          // The actor reloads its queue and tries again in a second; an operator sees why it stalls.
          options.log.warning(
            `webhook ${record.id}: delivery ${delivery.id} could not be attempted or recorded; retrying`,
            String(error),
          );
          throw error;
        }),
    deleted: (webhookId) => {
      outbox.forget(webhookId).catch(() => undefined);
    },
  };
  return { ports, outbox, close: sender.close } as const;
};

export type Dispatcher = ReturnType<typeof makeDispatcher>;
