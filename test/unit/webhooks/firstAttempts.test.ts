import type { KV } from "@nats-io/kv";
import { describe, expect, it } from "vitest";
import { type AttemptEnd, makeOutbox } from "../../../src/webhooks/outbox/Outbox.js";
import { OwnedPartitions } from "../../../src/webhooks/outbox/OwnedPartitions.js";
import { deliveryKey, partitionOf } from "../../../src/webhooks/outbox/outboxBucketKeys.js";
import type { OutboxWrites } from "../../../src/webhooks/outbox/outboxWrites.js";
import { PartitionIndex, UNSTORED } from "../../../src/webhooks/outbox/PartitionIndex.js";
import type { AttemptRecord, QueuedDelivery } from "../../../src/webhooks/outbox/QueuedDelivery.js";
import { SLOW_RECEIVER_MS } from "../../../src/webhooks/outbox/SlowReceivers.js";
import { decodeValue, type StoredDelivery } from "../../../src/webhooks/outbox/StoredDelivery.js";
import { owed } from "../../support/owedDelivery.js";

const HOOK = "0192e0a0-0000-7000-8000-00000000f157";
/** A webhook whose partition the process under test does not own. */
const ELSEWHERE = (() => {
  for (let i = 0; ; i++) {
    const id = `0192e0a0-0000-7000-8000-${String(i).padStart(12, "0")}`;
    if (partitionOf(id) !== partitionOf(HOOK)) return id;
  }
})();

const delivery = (webhookId: string, seq: number): QueuedDelivery => {
  const { state: _state, ...d } = owed(webhookId, seq);
  return d;
};
const keyOf = (d: QueuedDelivery) => deliveryKey(d.webhook_id, d.order);
const attempt = (d: QueuedDelivery, status: number | null, latencyMs = 2): AttemptRecord => ({
  delivery_id: d.id,
  at: new Date(0).toISOString(),
  retry_index: d.attempts,
  status,
  latency_ms: latencyMs,
  outcome: status === 200 ? "delivered" : "failed",
  error: status === 200 ? null : "HTTP 500",
});
const DELIVERED: AttemptEnd = { kind: "delivered" };
/** An answer slow enough to make a quick receiver's running latency slow at once. */
const SLOWLY = 4 * SLOW_RECEIVER_MS;
/** The notifier planned the stream's previous message itself. */
const FOLLOWS = { firstSends: true } as const;

/** The bucket's delivery writes, in memory: revision-checked as JetStream checks them, each one logged. */
const memoryWrites = () => {
  const stored = new Map<string, { revision: number; bytes: Uint8Array }>();
  const log: Array<string> = [];
  let last = 0;
  /** While set, writes wait for it (a write whose answer has not come yet). */
  let gate: Promise<void> | undefined;
  let failWith: Error | undefined;
  const write = async (op: string, key: string, bytes: Uint8Array, expected: number) => {
    await gate;
    if (failWith !== undefined) throw failWith;
    if ((stored.get(key)?.revision ?? 0) !== expected) throw new Error(`wrong last sequence: ${expected}`);
    log.push(`${op} ${key}`);
    stored.set(key, { revision: ++last, bytes });
    return last;
  };
  const writes: OutboxWrites = {
    create: (key, bytes) => write("create", key, bytes, 0),
    update: (key, bytes, revision) => write("update", key, bytes, revision),
  };
  return {
    writes,
    log,
    /** A read of the key, as the KV client answers it. */
    get: async (key: string) => {
      const held = stored.get(key);
      return held === undefined
        ? null
        : { key, revision: held.revision, operation: "PUT", value: held.bytes };
    },
    value: (key: string) => {
      const bytes = stored.get(key)?.bytes;
      return bytes === undefined ? undefined : decodeValue<StoredDelivery>(bytes);
    },
    hold: () => {
      let release = () => {};
      gate = new Promise((resolve) => {
        release = () => {
          gate = undefined;
          resolve();
        };
      });
      return release;
    },
    fail: (error: Error | undefined) => {
      failWith = error;
    },
  };
};

/** An outbox owning HOOK's partition, with the notifier's wait under the test's control. */
const setUp = () => {
  const bucket = memoryWrites();
  const owned = new OwnedPartitions();
  const index = new PartitionIndex();
  const woken: Array<string> = [];
  owned.add(partitionOf(HOOK), { index, fenced: () => true, wake: (id) => woken.push(id) });
  const waits: Array<() => void> = [];
  // Reads of keys a write was refused on, and a deleted webhook's purges, reach the KV client here.
  const kv = { get: bucket.get, purge: async () => {} } as unknown as KV;
  const outbox = makeOutbox({
    kv,
    listKeys: async () => [],
    owned,
    now: () => 1_000,
    statsFlushMs: 60_000,
    writes: bucket.writes,
    sleep: () => new Promise<void>((resolve) => waits.push(resolve)),
  });
  /** Ends the notifier's oldest wait for first attempts. */
  const waitRunsOut = () => waits.shift()?.();
  return { bucket, index, outbox, woken, waits, waitRunsOut };
};

/** Whether `promise` has settled by the time queued callbacks have run. */
const isSettled = async (promise: Promise<unknown>) => {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let i = 0; i < 20; i++) await Promise.resolve();
  return settled;
};

describe("deliveries attempted before they are stored", () => {
  it("behavior: to a webhook with nothing queued, the actor is woken to send it before any write; delivered, it is never written, and the event settles on its record", async () => {
    const { bucket, outbox, woken, index } = setUp();
    const d = delivery(HOOK, 1);
    const queued = outbox.queueEvent([d], FOLLOWS);
    expect(woken).toEqual([HOOK]);
    expect((await outbox.head(HOOK))?.id).toBe(d.id);
    expect(index.get(keyOf(d))?.revision).toBe(UNSTORED);
    expect(await isSettled(queued)).toBe(false);

    await outbox.recordAttempt(d, attempt(d, 200), DELIVERED);
    await queued;
    expect(bucket.log).toEqual([]);
    expect(await outbox.head(HOOK)).toBeUndefined();
  });

  it("behavior: a first attempt that fails is stored as attempted, with its retry time, before the event settles", async () => {
    const { bucket, outbox } = setUp();
    const d = delivery(HOOK, 1);
    const queued = outbox.queueEvent([d], FOLLOWS);
    await outbox.recordAttempt(d, attempt(d, 500), { kind: "retry", at: 5_000 });
    await queued;
    expect(bucket.log).toEqual([`create ${keyOf(d)}`]);
    expect(bucket.value(keyOf(d))).toMatchObject({ state: "queued", attempts: 1, next_attempt_at: 5_000 });
    expect((await outbox.head(HOOK))?.attempts).toBe(1);
  });

  it("behavior: unsettled when the wait runs out, it is stored as queued and its record lands on that key; the webhook's next event is stored at once", async () => {
    const { bucket, outbox, waitRunsOut, waits } = setUp();
    const d = delivery(HOOK, 1);
    const queued = outbox.queueEvent([d], FOLLOWS);
    // The store's answer is slow, and the attempt ends meanwhile: one create, then the record over it.
    const release = bucket.hold();
    waitRunsOut();
    expect(await isSettled(queued)).toBe(false);
    // It answered after the wait (FIRST_ATTEMPT_WAIT_MS and more).
    const recorded = outbox.recordAttempt(d, attempt(d, 200, 300), DELIVERED);
    release();
    await Promise.all([queued, recorded]);
    expect(bucket.log).toEqual([`create ${keyOf(d)}`, `update ${keyOf(d)}`]);
    expect(bucket.value(keyOf(d))?.state).toBe("done");

    const next = delivery(HOOK, 2);
    await outbox.queueEvent([next], FOLLOWS);
    expect(waits).toHaveLength(0);
    expect(bucket.log).toEqual([`create ${keyOf(d)}`, `update ${keyOf(d)}`, `create ${keyOf(next)}`]);
  });

  it("behavior: behind a delivery still queued, or outside the partitions this process owns, deliveries are stored at once, in order", async () => {
    const { bucket, outbox, index } = setUp();
    const waiting = delivery(HOOK, 1);
    await outbox.enqueue([waiting]);
    const behind = delivery(HOOK, 2);
    const elsewhere = delivery(ELSEWHERE, 2);
    await outbox.queueEvent([behind, elsewhere], FOLLOWS);
    expect(bucket.log).toEqual([
      `create ${keyOf(waiting)}`,
      `create ${keyOf(behind)}`,
      `create ${keyOf(elsewhere)}`,
    ]);
    expect((await outbox.head(HOOK))?.id).toBe(waiting.id);
    expect(index.get(keyOf(behind))?.revision).toBeGreaterThan(UNSTORED);
  });

  it("behavior: to an inactive webhook (a reorg's retraction) a delivery is stored at once, not attempted: the event waits for no attempt", async () => {
    const { bucket, outbox, waits } = setUp();
    const retraction = delivery(HOOK, 1);
    await outbox.queueEvent([retraction], { ...FOLLOWS, inactive: (id) => id === HOOK });
    expect(waits).toHaveLength(0);
    expect(bucket.log).toEqual([`create ${keyOf(retraction)}`]);
  });

  it("behavior: a webhook whose receiver answered slowly has its next delivery stored first, until one is delivered quickly", async () => {
    const { bucket, outbox } = setUp();
    const first = delivery(HOOK, 1);
    const queued = outbox.queueEvent([first], FOLLOWS);
    await outbox.recordAttempt(first, attempt(first, 200, SLOWLY), DELIVERED);
    await queued;
    expect(bucket.log).toEqual([]);

    const second = delivery(HOOK, 2);
    await outbox.queueEvent([second], FOLLOWS);
    expect(bucket.log).toEqual([`create ${keyOf(second)}`]);
    await outbox.recordAttempt(second, attempt(second, 200, SLOW_RECEIVER_MS - 1), DELIVERED);

    const third = delivery(HOOK, 3);
    const sent = outbox.queueEvent([third], FOLLOWS);
    expect(await isSettled(sent)).toBe(false);
    await outbox.recordAttempt(third, attempt(third, 200), DELIVERED);
    await sent;
    expect(bucket.log).toEqual([`create ${keyOf(second)}`, `update ${keyOf(second)}`]);
  });

  it("behavior: one answer just over the bound among quick ones does not make a receiver slow; a receiver that stays over it is", async () => {
    const { bucket, outbox } = setUp();
    let seq = 0;
    const wentFirst: Array<boolean> = [];
    for (const latencyMs of [2, 2, SLOW_RECEIVER_MS + 5, 2, ...Array(8).fill(SLOW_RECEIVER_MS + 5)]) {
      const d = delivery(HOOK, ++seq);
      const writesBefore = bucket.log.length;
      const queued = outbox.queueEvent([d], FOLLOWS);
      wentFirst.push(bucket.log.length === writesBefore && !(await isSettled(queued)));
      await outbox.recordAttempt(d, attempt(d, 200, latencyMs), DELIVERED);
      await queued;
    }
    // The running latency reaches the bound at the sixth slow answer in a row; the seventh is stored.
    expect(wentFirst).toEqual([true, true, true, true, true, true, true, true, true, true, false, false]);
  });

  it("behavior: a chain event the notifier did not plan right after its previous one is stored at once (another node may have queued in between)", async () => {
    const { bucket, outbox } = setUp();
    const d = delivery(HOOK, 1);
    await outbox.queueEvent([d], { firstSends: false });
    expect(bucket.log).toEqual([`create ${keyOf(d)}`]);
  });

  it("behavior: a receiver found slow a second time needs two quick deliveries in a row before its deliveries go first again", async () => {
    const { bucket, outbox } = setUp();
    let seq = 0;
    /** One event to HOOK, answered after `latencyMs`: whether it went first. */
    const event = async (latencyMs: number) => {
      const d = delivery(HOOK, ++seq);
      const writesBefore = bucket.log.length;
      const queued = outbox.queueEvent([d], FOLLOWS);
      const wentFirst = bucket.log.length === writesBefore && !(await isSettled(queued));
      await outbox.recordAttempt(d, attempt(d, 200, latencyMs), DELIVERED);
      await queued;
      return wentFirst;
    };
    expect(await event(SLOWLY)).toBe(true);
    expect(await event(1)).toBe(false);
    expect(await event(SLOWLY)).toBe(true);
    expect(await event(1)).toBe(false);
    expect(await event(1)).toBe(false);
    expect(await event(1)).toBe(true);
  });

  it("behavior: delivered unstored, then the event's acknowledgement failed: done markers keep its replay from sending it again", async () => {
    const { bucket, outbox, woken } = setUp();
    const d = delivery(HOOK, 1);
    const queued = outbox.queueEvent([d], FOLLOWS);
    await outbox.recordAttempt(d, attempt(d, 200), DELIVERED);
    const sentUnstored = await queued;
    expect(sentUnstored.map((x) => x.id)).toEqual([d.id]);
    // The block's records could not be written: the notifier marks them and offers the event again.
    await outbox.markDelivered(sentUnstored);
    expect(bucket.value(keyOf(d))?.state).toBe("done");
    expect(await outbox.queueEvent([d], FOLLOWS)).toEqual([]);
    expect(await outbox.head(HOOK)).toBeUndefined();
    expect(woken).toEqual([HOOK]);
  });

  it("behavior: a webhook deleted while its delivery is held gets nothing stored, and the event settles", async () => {
    const { bucket, outbox, waits } = setUp();
    const d = delivery(HOOK, 1);
    const queued = outbox.queueEvent([d], FOLLOWS);
    await outbox.forget(HOOK);
    expect(await queued).toEqual([]);
    expect(bucket.log).toEqual([]);
    expect(await outbox.head(HOOK)).toBeUndefined();
    expect(waits).toHaveLength(1);
  });

  it("error: a store that fails rejects the event and lets go of its deliveries, so its replay queues each once", async () => {
    const { bucket, outbox, waitRunsOut, index } = setUp();
    const d = delivery(HOOK, 1);
    const queued = outbox.queueEvent([d], FOLLOWS);
    bucket.fail(new Error("no responders"));
    waitRunsOut();
    await expect(queued).rejects.toThrow("no responders");
    expect(index.get(keyOf(d))).toBeUndefined();

    bucket.fail(undefined);
    // Its webhook counts as slow now (its attempt outlasted the wait): the replay stores it, once.
    await outbox.queueEvent([d], FOLLOWS);
    expect(bucket.log).toEqual([`create ${keyOf(d)}`]);
    expect(index.get(keyOf(d))?.revision).toBeGreaterThan(UNSTORED);
  });
});
