import { Effect } from "effect";
import { Pool } from "undici";
import { openBucket } from "../../src/nats/JetStreamSetup.js";
import { deliveryKey, deliveryOrder } from "../../src/webhooks/outbox/outboxBucketKeys.js";
import { startTestNats } from "../../test/support/natsServer.js";
import { measureCpu } from "./cpu.js";
import { natsServerPid } from "./natsServerPid.js";

/** One delivery as the receiver got it from the service. */
export interface ReceivedDelivery {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const encoder = new TextEncoder();
/** What a delivered key becomes (the size of the service's done marker). */
const DONE = encoder.encode(
  JSON.stringify({ state: "done", id: "x".repeat(36), order: "0".repeat(30), done_at: 0 }),
);

/** The deliveries of each webhook, in the order received (its send order). */
export const deliveriesByWebhook = (deliveries: ReadonlyArray<ReceivedDelivery>) => {
  const byWebhook = new Map<string, Array<ReceivedDelivery>>();
  for (const d of deliveries) {
    const id = String(d.headers["svc-webhook-subscription-id"]);
    const queue = byWebhook.get(id);
    if (queue === undefined) byWebhook.set(id, [d]);
    else queue.push(d);
  }
  return byWebhook;
};

/**
 * A bare loop with the outbox's guarantees, to compare the service with: per delivery, the two revision-checked
 * writes the outbox cannot do without around the same undici POST. The notifier's creates
 * of queued deliveries (bodies included) go block by block, each block's together; each
 * webhook's sender posts its deliveries in order, recording each at the revision its create
 * answered before sending the next, every webhook at once. No
 * notifier, lease, index, signing or metering: only the bus round trips and JetStream's
 * stores, written through the KV client (the service sends the same writes through its request
 * mux, which is cheaper, so this is a reference, not a lower bound). Runs against a nats-server of its own (the same config, buckets provisioned as
 * the service does), written as the `api` user through the KV client.
 */
export const outboxReferenceRate = async (
  receiverUrl: string,
  deliveries: ReadonlyArray<ReceivedDelivery>,
) => {
  const byWebhook = deliveriesByWebhook(deliveries);
  const nats = await startTestNats();
  const nc = await nats.connectAs("api");
  const kv = await Effect.runPromise(openBucket(nc, "webhook_outbox"));
  const pool = new Pool(new URL(receiverUrl).origin, { connections: byWebhook.size });
  const path = new URL(receiverUrl).pathname;
  try {
    const queues = [...byWebhook];
    const blocks = Math.max(...queues.map(([, queue]) => queue.length));
    /** Per webhook, the revision of each queued delivery's create, as the notifier makes them. */
    const created = queues.map(() => [] as Array<Promise<number>>);
    const started = performance.now();
    const measured = await measureCpu({ "nats-server": natsServerPid(nats.url) }, async () => {
      // The notifier: each block's deliveries created together, one block after another.
      const notifier = (async () => {
        for (let i = 0; i < blocks; i++) {
          const writes = queues.flatMap(([webhookId, queue], w) => {
            if (queue[i] === undefined) return [];
            const revision = kv.create(
              deliveryKey(webhookId, deliveryOrder(0, i, 0)),
              encoder.encode(queue[i]!.body),
            );
            created[w]![i] = revision;
            return [revision];
          });
          await Promise.all(writes);
        }
      })();
      // The senders: each webhook's deliveries in order, each recorded before the next is sent.
      const senders = queues.map(async ([webhookId, queue], w) => {
        for (const [i, d] of queue.entries()) {
          while (created[w]![i] === undefined) await new Promise((r) => setImmediate(r));
          const revision = await created[w]![i]!;
          const res = await pool.request({ path, method: "POST", headers: d.headers, body: d.body });
          await res.body.dump();
          await kv.update(deliveryKey(webhookId, deliveryOrder(0, i, 0)), DONE, revision);
        }
      });
      await Promise.all([notifier, ...senders]);
    });
    const { loadgen, ...others } = measured.cpuMs;
    return {
      rate: deliveries.length / ((performance.now() - started) / 1000),
      /** CPU ms of its nats-server and of the bench process (the loop, its KV client and the receiver). */
      cpuMs: { ...others, "bench (loop, receiver)": loadgen! },
    };
  } finally {
    await pool.close();
    await nc.close();
    await nats.stop();
  }
};
