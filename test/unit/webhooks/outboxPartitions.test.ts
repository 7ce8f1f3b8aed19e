import { Effect, Logger, LogLevel, Scope, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import { NotPartitionOwner, OwnedPartitions } from "../../../src/webhooks/outbox/OwnedPartitions.js";
import {
  deliveryKey,
  deliveryOrder,
  PARTITIONS,
  parseDeliveryKey,
  partitionOf,
} from "../../../src/webhooks/outbox/outboxBucketKeys.js";
import {
  ownPartitions,
  type PartitionSource,
  sweepDone,
} from "../../../src/webhooks/outbox/ownPartitions.js";
import { PartitionIndex } from "../../../src/webhooks/outbox/PartitionIndex.js";
import type { QueuedDelivery } from "../../../src/webhooks/outbox/QueuedDelivery.js";
import {
  DONE_KEPT_MS,
  encodeValue,
  type StoredDelivery,
} from "../../../src/webhooks/outbox/StoredDelivery.js";
import { memoryBucket } from "../../support/memoryLeaseBucket.js";
import { owed } from "../../support/owedDelivery.js";

const LEASE_MS = 10_000;
const HAND_BACK_AFTER_MS = 25_000;

const keyOf = (d: QueuedDelivery) => deliveryKey(d.webhook_id, d.order);

const run = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.runPromise(
    effect.pipe(Logger.withMinimumLogLevel(LogLevel.None), Effect.provide(TestContext.TestContext)),
  );

describe("a partition's index", () => {
  it("behavior: the head is the webhook's first queued delivery in send order, whatever order changes arrive in", () => {
    const index = new PartitionIndex();
    const [first, second, third] = [owed("w", 7), owed("w", 8), owed("w", 9)];
    // A watch delivers the most recently written key first: the first delivery was retried last.
    index.apply(keyOf(third), 3, third);
    index.apply(keyOf(second), 2, second);
    index.apply(keyOf(first), 4, { ...first, attempts: 1, next_attempt_at: 5 });
    expect(index.head("w")?.value.id).toBe(first.id);
    const done: StoredDelivery = {
      state: "done",
      id: first.id,
      webhook_id: "w",
      order: first.order,
      done_at: 1,
    };
    index.apply(keyOf(first), 5, done);
    expect(index.head("w")?.value.id).toBe(second.id);
    index.apply(keyOf(second), 6, { ...second, state: "dead" });
    expect(index.head("w")?.value.id).toBe(third.id);
    expect(index.figures()).toEqual({ queued: 1, retrying: 0, dead: 1 });
    expect(index.doneBefore(2).map((e) => e.key)).toEqual([keyOf(first)]);
  });

  it("behavior: a change older than the one held is ignored, so a late echo cannot undo a recorded attempt or revive a deleted key", () => {
    const index = new PartitionIndex();
    const d = owed("w", 1);
    expect(index.apply(keyOf(d), 10, d)).toBe(true);
    expect(index.apply(keyOf(d), 12, { ...d, attempts: 1, next_attempt_at: 99 })).toBe(false);
    expect(index.apply(keyOf(d), 10, d)).toBe(false);
    expect(index.get(keyOf(d))?.revision).toBe(12);
    index.apply(keyOf(d), 13, undefined);
    expect(index.apply(keyOf(d), 12, d)).toBe(false);
    expect(index.head("w")).toBeUndefined();
    // Requeued dead letters wake the actor; so does a new delivery.
    const dead = owed("w", 2, { state: "dead" });
    index.apply(keyOf(dead), 14, dead);
    expect(index.apply(keyOf(dead), 15, { ...dead, state: "queued" })).toBe(true);
  });
});

describe("delivery keys", () => {
  it("args: a delivery key reads back as its webhook and order; stats, lease and malformed keys read as none", () => {
    const order = deliveryOrder(1_700_000_000_000, 42, 3);
    const webhookId = "01900000-0000-7000-8000-000000000001";
    expect(parseDeliveryKey(deliveryKey(webhookId, order))).toEqual({ webhookId, order });
    for (const key of ["st.w", "lease.03", "d.03.w", "d.03", "d.03.w.o.x", "x.03.w.o"])
      expect(parseDeliveryKey(key)).toBeUndefined();
  });
});

describe("echoes of this process's own writes", () => {
  it("behavior: an echo arriving before its write's answer is recognised by its bytes; other bytes, or after the answer, are not", () => {
    const index = new PartitionIndex();
    const d = owed("w", 1);
    const bytes = encodeValue(d);
    index.writing(keyOf(d), bytes, d);
    // The same bytes, as the watch hands them over (a copy), give the value written without decoding.
    expect(index.echoOf(keyOf(d), new Uint8Array(bytes))).toBe(d);
    // Another writer's value at that key is not taken for this process's.
    expect(index.echoOf(keyOf(d), encodeValue({ ...d, attempts: 1 }))).toBeUndefined();
    expect(index.echoOf(keyOf(owed("w", 2)), bytes)).toBeUndefined();
    index.settled(keyOf(d));
    expect(index.echoOf(keyOf(d), bytes)).toBeUndefined();
  });
});

describe("the done-marker sweep", () => {
  it("behavior: done markers are purged once DONE_KEPT_MS old, and only they", () =>
    run(
      Effect.gen(function* () {
        const index = new PartitionIndex();
        const [delivered, later, waiting] = [owed("w", 1), owed("w", 2), owed("w", 3)];
        const done = (d: QueuedDelivery, at: number): StoredDelivery => ({
          state: "done",
          id: d.id,
          webhook_id: "w",
          order: d.order,
          done_at: at,
        });
        index.apply(keyOf(delivered), 1, done(delivered, 0));
        index.apply(keyOf(later), 2, done(later, 60_000));
        index.apply(keyOf(waiting), 3, waiting);
        const purged: Array<string> = [];
        yield* TestClock.adjust(DONE_KEPT_MS + 1);
        yield* sweepDone(async (key) => {
          purged.push(key);
        })(index);
        expect(purged).toEqual([keyOf(delivered)]);
        expect(index.get(keyOf(delivered))).toBeUndefined();
        expect(index.get(keyOf(later))).toBeDefined();
        expect(index.head("w")?.value.id).toBe(waiting.id);
      }),
    ));
});

/** One webhook per partition, each with one queued delivery, as the fake source loads them. */
const webhookOfPartition = new Map<number, string>();
for (let i = 0; webhookOfPartition.size < PARTITIONS; i++) {
  const id = `webhook-${i}`;
  if (!webhookOfPartition.has(partitionOf(id))) webhookOfPartition.set(partitionOf(id), id);
}
const fakeSource: PartitionSource = {
  load: (partition, index) =>
    Effect.sync(() => {
      const d = owed(webhookOfPartition.get(partition)!, partition + 1);
      index.apply(keyOf(d), 1, d);
    }),
  sweep: () => Effect.void,
};

/** An API process taking part in the ownership; its scope stands for its life. */
const apiProcess = (bucket: ReturnType<typeof memoryBucket>, name: string, share: () => number) =>
  Effect.gen(function* () {
    const view = bucket.view();
    const owned = new OwnedPartitions();
    const woken: Array<string> = [];
    const scope = yield* Scope.make();
    yield* Scope.extend(
      ownPartitions(
        {
          source: fakeSource,
          leases: view.store,
          owner: name,
          timing: { leaseMs: LEASE_MS },
          owned,
          share,
          wake: (id) => woken.push(id),
        },
        HAND_BACK_AFTER_MS,
      ),
      scope,
    );
    /** Partitions this process may send now. */
    const sending = () =>
      [...webhookOfPartition].filter(([, id]) => owned.indexOf(id) !== undefined).map(([p]) => p);
    return { owned, woken, scope, sending, kill: view.cutOff };
  });

/** Advances the clock in steps, checking after each that no partition is sent by two processes. */
const advance = (
  ms: number,
  processes: ReadonlyArray<{ sending: () => ReadonlyArray<number> }>,
  step = 250,
) =>
  Effect.gen(function* () {
    for (let t = 0; t < ms; t += step) {
      yield* TestClock.adjust(step);
      const all = processes.flatMap((p) => p.sending());
      expect(new Set(all).size).toBe(all.length);
    }
  });

describe("outbox partition ownership", () => {
  it("behavior: with two processes every partition is sent by exactly one; after kill -9 of one, the other takes its partitions over and wakes their webhooks", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        let live = 2;
        const a = yield* apiProcess(bucket, "a", () => Math.ceil(PARTITIONS / live));
        const b = yield* apiProcess(bucket, "b", () => Math.ceil(PARTITIONS / live));
        yield* advance(LEASE_MS, [a, b]);
        expect(a.sending().length + b.sending().length).toBe(PARTITIONS);
        // Both may take more than their share at first (they start together); the extra goes back.
        yield* advance(HAND_BACK_AFTER_MS + 3 * LEASE_MS, [a, b], 1_000);
        expect(a.sending().length).toBe(PARTITIONS / 2);
        expect(b.sending().length).toBe(PARTITIONS / 2);

        const killedAt = yield* TestClock.currentTimeMillis;
        const hadA = a.sending();
        a.kill();
        // The killed process stops sending once it cannot renew for half a lease period.
        yield* advance(LEASE_MS / 2, [a, b]);
        expect(a.sending()).toEqual([]);
        // Presence still counts the dead process: the takeover does not wait for it.
        let takenAt: number | undefined;
        for (let t = 0; t < 4 * LEASE_MS && takenAt === undefined; t += 250) {
          yield* advance(250, [a, b]);
          if (b.sending().length === PARTITIONS) takenAt = yield* TestClock.currentTimeMillis;
        }
        expect(takenAt).toBeDefined();
        // Not before a whole lease period of silence, and within a period and a half.
        expect(takenAt! - killedAt).toBeGreaterThanOrEqual(LEASE_MS);
        expect(takenAt! - killedAt).toBeLessThanOrEqual(1.5 * LEASE_MS + 1_000);
        for (const p of hadA) expect(b.woken).toContain(webhookOfPartition.get(p));
        // Once presence has forgotten the dead process, the survivor keeps them all.
        live = 1;
        yield* advance(HAND_BACK_AFTER_MS + LEASE_MS, [a, b], 1_000);
        expect(b.sending().length).toBe(PARTITIONS);
        yield* Scope.close(b.scope, Effect.void as never);
      }),
    ));

  it("behavior: a process that holds more than its share hands partitions back to a newcomer until each holds half", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        let live = 1;
        const a = yield* apiProcess(bucket, "a", () => Math.ceil(PARTITIONS / live));
        yield* advance(LEASE_MS, [a]);
        expect(a.sending().length).toBe(PARTITIONS);
        live = 2;
        const b = yield* apiProcess(bucket, "b", () => Math.ceil(PARTITIONS / live));
        yield* advance(HAND_BACK_AFTER_MS + 3 * LEASE_MS, [a, b], 1_000);
        expect(a.sending().length).toBe(PARTITIONS / 2);
        expect(b.sending().length).toBe(PARTITIONS / 2);
      }),
    ));

  it("error: an attempt outside the partitions a process owns is refused before anything is sent", async () => {
    const owned = new OwnedPartitions();
    let sent = 0;
    await expect(owned.attempt("webhook-0", async () => sent++)).rejects.toBeInstanceOf(NotPartitionOwner);
    expect(sent).toBe(0);
    const index = new PartitionIndex();
    owned.add(partitionOf("webhook-0"), { index, fenced: () => false });
    // Owned, but the lease is no longer certainly ours (not renewed in time).
    await expect(owned.attempt("webhook-0", async () => sent++)).rejects.toBeInstanceOf(NotPartitionOwner);
    expect(sent).toBe(0);
  });
});
