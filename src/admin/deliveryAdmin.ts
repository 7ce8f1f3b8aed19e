import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { adminRedeliverWebhook, adminWebhookDeliveries } from "../contracts/Admin.js";
import { DeliveryOutbox } from "../webhooks/delivery/DeliveryLayer.js";
import { AdminFailure, adminHandler, serveAdmin } from "./AdminServer.js";
import { nodeStats } from "./deliveryStats.js";

/**
 * Serves the delivery admin operations (`admin.webhooks.deliveries.get`,
 * `admin.webhooks.deliveries.redeliver`). The outbox is replicated, so the API
 * process taking the call reads and requeues from it directly; the owner of the
 * webhook's partition sees requeued dead letters through its watch.
 */
/** The outbox bucket unreachable (a broker restarting): the operator may try again. */
const fromOutbox = <A>(read: () => Promise<A>) =>
  Effect.tryPromise({
    try: read,
    catch: (cause) =>
      new AdminFailure({
        code: "INTERNAL_ERROR",
        message: `the webhook outbox cannot be read now: ${cause instanceof Error ? cause.message : String(cause)}`,
      }),
  });

export const serveDeliveryAdmin = (nc: NatsConnection) =>
  Effect.gen(function* () {
    const outbox = yield* DeliveryOutbox;
    yield* serveAdmin(nc, [
      adminHandler(adminWebhookDeliveries, (payload) =>
        Effect.map(
          fromOutbox(() => Promise.all(payload.webhook_ids.map((id) => nodeStats(outbox, id)))),
          (webhooks) => ({ webhooks }),
        ),
      ),
      adminHandler(adminRedeliverWebhook, (payload) =>
        Effect.map(
          fromOutbox(() => outbox.redeliver(payload.webhook_id)),
          (requeued) => ({ requeued }),
        ),
      ),
    ]);
  });
