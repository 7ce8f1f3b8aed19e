import { connect } from "@nats-io/transport-node";
import { Pool } from "undici";

/**
 * The least a webhook service can do in its own process: per block, one NATS
 * message carrying every delivery of the block (headers and body already
 * signed and built), each webhook's deliveries POSTed in order, one in flight
 * per webhook, with undici. Nothing is stored, planned, signed or metered.
 * The webhooks bench compares it with raw undici sent from the receiver's own
 * process, to show what crossing processes alone costs per delivery.
 */
interface RelayedDelivery {
  readonly webhook: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const { url, credentials } = JSON.parse(process.env.BENCH_NATS ?? "{}") as {
  url: string;
  credentials: Record<string, string>;
};
const target = new URL(process.env.RELAY_TARGET ?? "http://127.0.0.1:1/");
const pool = new Pool(target.origin, { connections: Number(process.env.RELAY_CONNECTIONS ?? 64) });
const queues = new Map<string, Array<RelayedDelivery>>();
const sending = new Set<string>();

const drain = async (webhook: string) => {
  sending.add(webhook);
  const queue = queues.get(webhook)!;
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const res = await pool.request({
      path: target.pathname,
      method: "POST",
      headers: next.headers,
      body: next.body,
    });
    await res.body.dump();
  }
  sending.delete(webhook);
};

const nc = await connect({ servers: url, user: "api", pass: credentials.api ?? "" });
nc.subscribe("svc.bench.relay", {
  callback: (_, msg) => {
    for (const d of msg.json<ReadonlyArray<RelayedDelivery>>()) {
      const queue = queues.get(d.webhook) ?? [];
      queue.push(d);
      queues.set(d.webhook, queue);
      if (!sending.has(d.webhook)) void drain(d.webhook);
    }
  },
});
await nc.flush();
process.stdout.write("ready\n");
process.on("SIGTERM", () => nc.drain().then(() => process.exit(0)));
