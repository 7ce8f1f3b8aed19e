import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Exit, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { isRevisionConflict } from "../../../src/nats/revisionConflict.js";
import { streamTail } from "../../../src/nats/streamTail.js";
import { listOutboxKeys } from "../../../src/webhooks/outbox/listOutboxKeys.js";
import { makeOutbox } from "../../../src/webhooks/outbox/Outbox.js";
import { OwnedPartitions } from "../../../src/webhooks/outbox/OwnedPartitions.js";
import { deliveryKey, partitionOf } from "../../../src/webhooks/outbox/outboxBucketKeys.js";
import { bucketSource } from "../../../src/webhooks/outbox/ownPartitions.js";
import { PartitionIndex } from "../../../src/webhooks/outbox/PartitionIndex.js";
import type { AttemptRecord } from "../../../src/webhooks/outbox/QueuedDelivery.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { owed } from "../../support/owedDelivery.js";
import { eventually } from "../../support/serviceHarness.js";
import { withSilentWatches } from "../../support/silentWatch.js";

let nats: TestNats;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startTestNats();
  nc = await nats.connectAs("api");
});

afterAll(async () => {
  await nats?.stop();
});

const { state: _queued, ...delivery } = owed("0192e0a0-0000-7000-8000-00000000a11e", 1);
const webhookId = delivery.webhook_id;
const attempt: AttemptRecord = {
  delivery_id: delivery.id,
  at: new Date(0).toISOString(),
  retry_index: 0,
  status: 200,
  latency_ms: 1,
  outcome: "delivered",
  error: null,
};

/** An outbox owning the delivery's partition, whose watch has stalled: nothing written by others reaches its index. */
const stalledOwner = async () => {
  const kv = await Effect.runPromise(openBucket(nc, "webhook_outbox"));
  const owned = new OwnedPartitions();
  const index = new PartitionIndex();
  owned.add(partitionOf(webhookId), { index, fenced: () => true });
  const outbox = makeOutbox({
    kv,
    listKeys: listOutboxKeys(await jetstreamManager(nc)),
    owned,
    now: () => 1_000,
    statsFlushMs: 60_000,
  });
  return { kv, index, outbox };
};

const recordOnce = (
  outbox: Awaited<ReturnType<typeof stalledOwner>>["outbox"],
  d: typeof delivery = delivery,
) =>
  outbox.recordAttempt(d, { ...attempt, delivery_id: d.id }, { kind: "delivered" }).then(
    () => "recorded",
    (error: unknown) => (isRevisionConflict(error) ? "conflict" : String(error)),
  );

describe("recording an attempt over a revision the partition's index missed", () => {
  it("behavior: the first record fails on the stale revision, the next names the current one and is stored", async () => {
    const { kv, index, outbox } = await stalledOwner();
    await outbox.enqueue([delivery]);
    const key = deliveryKey(webhookId, delivery.order);
    expect(index.get(key)?.revision).toBe((await kv.get(key))?.revision);
    // Another write to the key the index does not see (e.g. an attempt whose answer timed out).
    const moved = await kv.put(key, JSON.stringify({ ...delivery, state: "queued", attempts: 1 }));

    expect(await recordOnce(outbox)).toBe("conflict");
    expect(index.get(key)?.revision).toBe(moved);
    await outbox.recordAttempt(delivery, attempt, { kind: "delivered" });
    expect((await kv.get(key))?.json<{ state: string }>().state).toBe("done");
    await outbox.flushStats();
  });

  it("error: an index holding a revision the key never had takes the leader's after the refusal, and the next record is stored", async () => {
    const { kv, index, outbox } = await stalledOwner();
    const other = { ...delivery, id: "msg_other", order: `${delivery.order}-b` };
    await outbox.enqueue([other]);
    const key = deliveryKey(webhookId, other.order);
    const stored = (await kv.get(key))!.revision;
    // Held above what the key has: every write naming it is refused, however often it is read again
    // from the leader, unless the leader's answer is taken over the index's.
    index.apply(key, stored + 1_000, { ...other, state: "queued" });
    expect(await recordOnce(outbox, other)).toBe("conflict");
    expect(index.get(key)?.revision).toBe(stored);
    expect(await recordOnce(outbox, other)).toBe("recorded");
    expect((await kv.get(key))?.json<{ state: string }>().state).toBe("done");
    await outbox.flushStats();
  });
});

describe("a partition owner whose watch stalls without ending", () => {
  const CHECK_MS = 300;

  it("behavior: a delivery another process queues meanwhile reaches the owner's index within two checks, its webhook woken, and one deleted meanwhile leaves it", async () => {
    const kv = await Effect.runPromise(openBucket(nc, "webhook_outbox"));
    const jsm = await jetstreamManager(nc);
    const gone = owed("0192e0a0-0000-7000-8000-0000000057a2", 1);
    const queued = owed(gone.webhook_id, 2);
    const partition = partitionOf(gone.webhook_id);
    await kv.create(deliveryKey(gone.webhook_id, gone.order), JSON.stringify(gone));
    const source = bucketSource(
      withSilentWatches(kv),
      listOutboxKeys(jsm),
      async () => undefined,
      streamTail(jsm, "KV_webhook_outbox", "$KV.webhook_outbox."),
      CHECK_MS,
    );
    const index = new PartitionIndex();
    const woken: Array<string> = [];
    const scope = await Effect.runPromise(Scope.make());
    try {
      await Effect.runPromise(
        Scope.extend(
          source.load(partition, index, (id) => woken.push(id)),
          scope,
        ),
      );
      expect(index.head(gone.webhook_id)?.value.id).toBe(gone.id);

      // Another process queues one delivery and deletes the other; the silent watch shows neither.
      const other = await nats.connectAs("api");
      const otherKv = await Effect.runPromise(openBucket(other, "webhook_outbox"));
      await otherKv.create(deliveryKey(queued.webhook_id, queued.order), JSON.stringify(queued));
      await otherKv.delete(deliveryKey(gone.webhook_id, gone.order));
      await other.close();
      const queuedAt = Date.now();
      await eventually(
        async () => index.head(queued.webhook_id)?.value.id === queued.id,
        10_000,
        "the delivery queued elsewhere, at the head",
      );
      expect(Date.now() - queuedAt).toBeLessThan(CHECK_MS * 2 + 1_500);
      expect(index.get(deliveryKey(gone.webhook_id, gone.order))).toBeUndefined();
      expect(woken).toContain(queued.webhook_id);
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void));
    }
  });
});
