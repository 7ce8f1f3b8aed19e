import type { TestNats } from "../../test/support/natsServer.js";
import { eventually } from "../../test/support/serviceHarness.js";
import type { startReceiver } from "../../test/support/webhookReceiver.js";
import { startChild } from "./child.js";
import { measureCpu } from "./cpu.js";
import { natsServerPid } from "./natsServerPid.js";
import { deliveriesByWebhook, type ReceivedDelivery } from "./outboxReference.js";

/**
 * The same deliveries sent by bench/servers/relay.ts, a process of its own fed one
 * NATS message per block: what a webhook service that stores, plans, signs and
 * meters nothing would reach, for comparison with raw undici sent from the
 * receiver's own process. Blocks are published back to back, as the service's
 * run publishes its chain events; the relay sends each webhook's in order.
 */
export const relayFloorRate = async (
  nats: TestNats,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  deliveries: ReadonlyArray<ReceivedDelivery>,
) => {
  const queues = [...deliveriesByWebhook(deliveries)];
  const blocks = Math.max(...queues.map(([, queue]) => queue.length));
  const relay = await startChild("bench/servers/relay.ts", {
    BENCH_NATS: JSON.stringify({ url: nats.url, credentials: nats.credentials }),
    RELAY_TARGET: receiver.url,
    RELAY_CONNECTIONS: String(queues.length),
  });
  const publisher = await nats.connectAs("gateway");
  try {
    const messages = Array.from({ length: blocks }, (_, i) =>
      JSON.stringify(
        queues.flatMap(([webhook, queue]) =>
          queue[i] === undefined ? [] : [{ webhook, headers: queue[i]!.headers, body: queue[i]!.body }],
        ),
      ),
    );
    receiver.received.length = 0;
    const started = performance.now();
    const measured = await measureCpu(
      { relay: relay.process.pid!, "nats-server": natsServerPid(nats.url) },
      async () => {
        for (const message of messages) publisher.publish("svc.bench.relay", message);
        await publisher.flush();
        await eventually(
          async () => receiver.received.length >= deliveries.length,
          120_000,
          "every relayed delivery",
        );
      },
    );
    const { loadgen, ...others } = measured.cpuMs;
    return {
      rate: deliveries.length / ((performance.now() - started) / 1000),
      /** CPU ms of the relay, its nats-server and the bench process (publisher and receiver). */
      cpuMs: { ...others, "bench (receiver, publisher)": loadgen! },
    };
  } finally {
    receiver.received.length = 0;
    await publisher.close();
    await relay.stop();
  }
};
