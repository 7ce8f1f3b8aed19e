import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import {
  adminRedeliverWebhook,
  adminWebhookDeliveries,
  type WebhookDeliveryStats,
} from "../contracts/Admin.js";
import { Presence } from "../presence/Presence.js";
import { DeliveryOutbox } from "../webhooks/delivery/DeliveryLayer.js";
import { WebhookSupervisor } from "../webhooks/WebhookSupervisor.js";
import { adminHandler, serveAdmin } from "./AdminServer.js";
import { mergeStats, nodeStats } from "./deliveryStats.js";

/**
 * Subjects every API node answers (no queue group) about its own outbox; the
 * node that takes an admin call gathers the answers of all of them, since each
 * node's outbox holds the deliveries its notifier planned. Only the `api`
 * NATS user may use them (nats.conf).
 */
export const NODE_SUBJECTS = {
  stats: "webhooks.node.deliveries.get",
  redeliver: "webhooks.node.deliveries.redeliver",
} as const;

/** How long the gathering node waits for the other nodes' answers, ms. */
const GATHER_MS = 1_000;

type Stats = typeof WebhookDeliveryStats.Type;

/** Asks every API node; stops early once as many answered as presence says are alive. */
const gather = <A>(nc: NatsConnection, subject: string, payload: unknown, expected: number) =>
  Effect.promise(async () => {
    const answers: Array<A> = [];
    const replies = await nc.requestMany(subject, JSON.stringify(payload), {
      maxWait: GATHER_MS,
      maxMessages: Math.max(1, expected),
    });
    for await (const reply of replies) {
      if (reply.data.length > 0) answers.push(reply.json() as A);
    }
    return answers;
  });

/**
 * Serves the delivery admin operations (`admin.webhooks.deliveries.get`,
 * `admin.webhooks.deliveries.redeliver`) and this node's part of them.
 */
export const serveDeliveryAdmin = (nc: NatsConnection) =>
  Effect.gen(function* () {
    const outbox = yield* DeliveryOutbox;
    const supervisor = yield* WebhookSupervisor;
    const presence = yield* Presence;
    const local = (subject: string, answer: (payload: never) => Promise<unknown>) => {
      const subscription = nc.subscribe(subject, {
        callback: (error, msg) => {
          if (error !== null) return;
          void answer(msg.json() as never)
            .then((body) => msg.respond(JSON.stringify(body)))
            .catch(() => msg.respond(""));
        },
      });
      return Effect.addFinalizer(() => Effect.promise(() => subscription.drain()));
    };
    yield* local(NODE_SUBJECTS.stats, async (payload: { webhook_ids: ReadonlyArray<string> }) =>
      Promise.all(payload.webhook_ids.map((id) => nodeStats(outbox, id))),
    );
    yield* local(NODE_SUBJECTS.redeliver, async (payload: { webhook_id: string }) => {
      const requeued = await outbox.redeliver(payload.webhook_id);
      if (requeued > 0) supervisor.notify(payload.webhook_id);
      return { requeued };
    });
    const nodes = () => presence.liveInstances().api ?? 1;
    yield* serveAdmin(nc, [
      adminHandler(adminWebhookDeliveries, (payload) =>
        Effect.map(gather<ReadonlyArray<Stats>>(nc, NODE_SUBJECTS.stats, payload, nodes()), (answers) => ({
          webhooks: payload.webhook_ids.map((id, i) =>
            mergeStats(
              id,
              answers.map((answer) => answer[i]!).filter((s) => s !== undefined),
            ),
          ),
        })),
      ),
      adminHandler(adminRedeliverWebhook, (payload) =>
        Effect.map(
          gather<{ requeued: number }>(nc, NODE_SUBJECTS.redeliver, payload, nodes()),
          (answers) => ({
            requeued: answers.reduce((total, a) => total + a.requeued, 0),
          }),
        ),
      ),
    ]);
  });
