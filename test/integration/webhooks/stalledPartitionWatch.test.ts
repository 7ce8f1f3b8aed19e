import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Exit, Fiber } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { streamTail } from "../../../src/nats/streamTail.js";
import { listOutboxKeys } from "../../../src/webhooks/outbox/listOutboxKeys.js";
import { deliveryKey, partitionOf } from "../../../src/webhooks/outbox/outboxBucketKeys.js";
import { bucketSource } from "../../../src/webhooks/outbox/ownPartitions.js";
import { PartitionIndex } from "../../../src/webhooks/outbox/PartitionIndex.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { owed } from "../../support/owedDelivery.js";
import { withSilentWatches } from "../../support/silentWatch.js";

let nats: TestNats;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startTestNats();
  nc = await nats.connectAs("api");
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

const CHECK_MS = 300;

describe("a partition whose watch stalls without ending", () => {
  it("behavior: a delivery another process queues meanwhile makes the owner load the partition again", async () => {
    const kv = await Effect.runPromise(openBucket(nc, "webhook_outbox"));
    const jsm = await jetstreamManager(nc);
    const delivery = owed("0192e0a0-0000-7000-8000-0000000057a1", 1);
    const partition = partitionOf(delivery.webhook_id);
    const source = bucketSource(
      withSilentWatches(kv),
      listOutboxKeys(jsm),
      async () => undefined,
      streamTail(jsm, "KV_webhook_outbox", "$KV.webhook_outbox."),
      CHECK_MS,
    );
    const index = new PartitionIndex();
    const fiber = Effect.runFork(
      Effect.scoped(
        Effect.flatMap(
          source.load(partition, index, () => undefined),
          (stopped) => stopped,
        ),
      ),
    );
    // Quiet: several checks pass and the partition is kept.
    await new Promise((r) => setTimeout(r, CHECK_MS * 4));
    expect(fiber.unsafePoll()).toBeNull();

    // Another process queues a delivery; the silent watch never shows it.
    const other = await nats.connectAs("api");
    const otherKv = await Effect.runPromise(openBucket(other, "webhook_outbox"));
    await otherKv.create(deliveryKey(delivery.webhook_id, delivery.order), JSON.stringify(delivery));
    await other.close();
    const queuedAt = Date.now();
    const exit = await Effect.runPromise(Fiber.await(fiber));
    expect(Exit.isSuccess(exit)).toBe(true);
    // Within two checks (plus the round trips), not at some much later reload.
    expect(Date.now() - queuedAt).toBeLessThan(CHECK_MS * 2 + 1_500);
  });
});
