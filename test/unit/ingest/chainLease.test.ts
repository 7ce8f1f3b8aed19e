import { Clock, Effect, Exit, Fiber, Logger, LogLevel, Option, Scope, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import { type Checkpoint, loadCheckpoint } from "../../../src/ingest/CheckpointStore.js";
import { acquireLease, type HeldLease } from "../../../src/ingest/lease/ChainLease.js";
import type { LeaseStore } from "../../../src/ingest/lease/LeaseStore.js";
import { leadChain } from "../../../src/ingest/lease/leadChain.js";
import { SilenceWatch } from "../../../src/ingest/lease/SilenceWatch.js";
import type { Db } from "../../../src/storage/Level.js";
import { memoryBucket } from "../../support/memoryLeaseBucket.js";

const LEASE_MS = 10_000;
const timing = { leaseMs: LEASE_MS };

const checkpointAt = (n: number): Checkpoint => ({
  window: [{ number: n, hash: `0x${n}`, parentHash: `0x${n - 1}` }],
  historyUntil: 0,
  start: 0,
});

/** Starts a process asking for the lease; its scope stands for the process's life. */
const contender = (store: LeaseStore, owner: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make();
    const fiber = yield* Effect.fork(Scope.extend(acquireLease(store, "1", owner, timing), scope));
    return { fiber, scope };
  });

const held = (fiber: Fiber.Fiber<HeldLease>) =>
  Effect.map(Fiber.poll(fiber), (exit) =>
    Option.isSome(exit) && Exit.isSuccess(exit.value) ? exit.value.value : undefined,
  );

// The renewals that fail while a holder is cut off log warnings, which say nothing here.
const run = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.runPromise(
    effect.pipe(Logger.withMinimumLogLevel(LogLevel.None), Effect.provide(TestContext.TestContext)),
  );

describe("chain lease", () => {
  it("behavior: one process follows; a standby never takes over while the holder renews", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        const a = yield* contender(bucket.view().store, "a");
        yield* TestClock.adjust(1);
        expect(yield* held(a.fiber)).toBeDefined();
        const b = yield* contender(bucket.view().store, "b");
        for (let i = 0; i < 20; i++) yield* TestClock.adjust(LEASE_MS / 2);
        expect(yield* held(b.fiber)).toBeUndefined();
        expect(bucket.owner("1")).toBe("a");
        // The holder renews all along, so it may still publish.
        const lease = yield* held(a.fiber);
        expect(yield* Effect.exit(lease!.fence)).toEqual(Exit.void);
        expect(lease!.freshAt(yield* Clock.currentTimeMillis)).toBe(true);
      }),
    ));

  it("behavior: a holder killed mid-lease stops counting before a standby takes over, which resumes from its checkpoint", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        const aView = bucket.view();
        const a = yield* contender(aView.store, "a");
        yield* TestClock.adjust(1);
        const aLease = (yield* held(a.fiber))!;
        yield* aLease.save(checkpointAt(41));
        yield* aLease.save(checkpointAt(42));
        const b = yield* contender(bucket.view().store, "b");
        yield* TestClock.adjust(1);

        // kill -9: the holder's writes stop reaching the bucket.
        aView.cutOff();
        yield* TestClock.adjust(LEASE_MS / 2);
        // Half a period without a renewal: the old holder no longer publishes (nor does the quick check say it may)...
        expect(aLease.freshAt(yield* Clock.currentTimeMillis)).toBe(false);
        expect((yield* Effect.exit(aLease.fence))._tag).toBe("Failure");
        // ...and the standby has not taken over yet (it waits a whole period of silence).
        expect(yield* held(b.fiber)).toBeUndefined();
        yield* TestClock.adjust(LEASE_MS / 2);
        yield* TestClock.adjust(LEASE_MS / 4);
        const bLease = yield* held(b.fiber);
        expect(bLease?.checkpoint).toEqual(checkpointAt(42));
        expect(bucket.owner("1")).toBe("b");
      }),
    ));

  it("behavior: a holder that finds its lease taken over (it was paused too long) loses it and may not save", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        const aView = bucket.view();
        const a = yield* contender(aView.store, "a");
        yield* TestClock.adjust(1);
        const aLease = (yield* held(a.fiber))!;
        // Another process writes the lease at a newer revision (it took over while `a` was frozen).
        const other = bucket.view().store;
        const current = (yield* other.read("1"))!;
        yield* other.update("1", { ...current.record, owner: "b" }, current.revision);
        const saved = yield* Effect.exit(aLease.save(checkpointAt(50)));
        expect(saved._tag).toBe("Failure");
        expect(Option.isSome(yield* Effect.option(Effect.timeout(aLease.lost, 1)))).toBe(true);
        expect(bucket.owner("1")).toBe("b");
      }),
    ));

  it("behavior: a holder that stops cleanly hands its lease back, and the standby takes it at its next look", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        const a = yield* contender(bucket.view().store, "a");
        yield* TestClock.adjust(1);
        yield* (yield* held(a.fiber))!.save(checkpointAt(7));
        const b = yield* contender(bucket.view().store, "b");
        yield* TestClock.adjust(1);
        yield* Scope.close(a.scope, Exit.void);
        yield* TestClock.adjust(LEASE_MS / 4);
        expect((yield* held(b.fiber))?.checkpoint).toEqual(checkpointAt(7));
      }),
    ));

  it("behavior: a holder that renews after its last save hands back that save, not where it started", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        const a = yield* contender(bucket.view().store, "a");
        yield* TestClock.adjust(1);
        yield* (yield* held(a.fiber))!.save(checkpointAt(7));
        // Renewals run every quarter period: several pass before the process stops.
        yield* TestClock.adjust(LEASE_MS);
        yield* Scope.close(a.scope, Exit.void);
        const b = yield* contender(bucket.view().store, "b");
        yield* TestClock.adjust(1);
        expect((yield* held(b.fiber))?.checkpoint).toEqual(checkpointAt(7));
      }),
    ));

  it("behavior: a standby taking over a killed holder that had renewed since its last save resumes from that save", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        const aView = bucket.view();
        const a = yield* contender(aView.store, "a");
        yield* TestClock.adjust(1);
        const aLease = (yield* held(a.fiber))!;
        yield* aLease.save(checkpointAt(41));
        yield* TestClock.adjust(LEASE_MS / 2);
        yield* aLease.save(checkpointAt(42));
        yield* TestClock.adjust(LEASE_MS / 2);
        const b = yield* contender(bucket.view().store, "b");
        yield* TestClock.adjust(1);
        aView.cutOff();
        for (let i = 0; i < 4; i++) yield* TestClock.adjust(LEASE_MS / 2);
        expect((yield* held(b.fiber))?.checkpoint).toEqual(checkpointAt(42));
      }),
    ));

  it("behavior: of two standbys seeing the same silent lease, exactly one takes it", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        const aView = bucket.view();
        yield* contender(aView.store, "a");
        yield* TestClock.adjust(1);
        const b = yield* contender(bucket.view().store, "b");
        const c = yield* contender(bucket.view().store, "c");
        yield* TestClock.adjust(1);
        aView.cutOff();
        for (let i = 0; i < 8; i++) yield* TestClock.adjust(LEASE_MS / 2);
        const holders = [yield* held(b.fiber), yield* held(c.fiber)].filter((l) => l !== undefined);
        expect(holders).toHaveLength(1);
        expect(["b", "c"]).toContain(bucket.owner("1"));
      }),
    ));
});

describe("leading a chain", () => {
  it("behavior: a holder cut off from NATS stops following before the standby starts, and never both follow", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        const following = new Set<string>();
        let both = false;
        const process = (name: string, store: LeaseStore) =>
          Effect.fork(
            leadChain({
              store,
              chainId: 1,
              owner: name,
              timing,
              follow: () => Effect.never,
              onLeading: (now) =>
                Effect.sync(() => {
                  if (now) following.add(name);
                  else following.delete(name);
                  if (following.size > 1) both = true;
                }),
            }),
          );
        const aView = bucket.view();
        yield* process("a", aView.store);
        yield* TestClock.adjust(1);
        yield* process("b", bucket.view().store);
        yield* TestClock.adjust(LEASE_MS);
        expect([...following]).toEqual(["a"]);

        aView.cutOff();
        yield* TestClock.adjust(LEASE_MS / 2 + LEASE_MS / 4);
        // `a` gave up within half a period (plus one renewal interval); `b` still waits for a whole one.
        expect([...following]).toEqual([]);
        yield* TestClock.adjust(LEASE_MS);
        expect([...following]).toEqual(["b"]);
        expect(both).toBe(false);
      }),
    ));

  it("error: a follower whose local checkpoint cannot be read hands the lease back and is tried again", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        let reads = 0;
        // A LevelDB whose reads fail (a disk error): the checkpoint of an earlier version is read first.
        const broken = {
          get: async () => {
            reads++;
            throw new Error("IO error: read failed");
          },
        } as unknown as Db;
        yield* Effect.fork(
          leadChain({
            store: bucket.view().store,
            chainId: 1,
            owner: "a",
            timing,
            follow: () => Effect.flatMap(loadCheckpoint(broken, 1), () => Effect.never),
            onLeading: () => Effect.void,
          }),
        );
        yield* TestClock.adjust(1);
        expect(reads).toBe(1);
        // A defect here would have ended the chain's leadership for good; a failure waits a lease period.
        yield* TestClock.adjust(LEASE_MS + 1);
        expect(reads).toBe(2);
      }),
    ));

  it("error: a follower that dies of a defect (a bug, an answer no code expected) hands the lease back and is tried again", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        let starts = 0;
        const leading: Array<boolean> = [];
        yield* Effect.fork(
          leadChain({
            store: bucket.view().store,
            chainId: 1,
            owner: "a",
            timing,
            follow: () =>
              Effect.suspend(() => {
                starts++;
                return starts === 1
                  ? Effect.die(new TypeError("Cannot read properties of null (reading 'error')"))
                  : Effect.never;
              }),
            onLeading: (now) => Effect.sync(() => leading.push(now)),
          }),
        );
        yield* TestClock.adjust(1);
        expect(starts).toBe(1);
        expect(leading).toEqual([true, false]);
        // The chain is followed again after a lease period, not given up for the process's life.
        yield* TestClock.adjust(LEASE_MS + 1);
        expect(starts).toBe(2);
        expect(leading).toEqual([true, false, true]);
        expect(bucket.owner("1")).toBe("a");
      }),
    ));
});

describe("silence watch", () => {
  it("args: silent only after a whole lease period with the same revision, on its own clock", () => {
    const watch = new SilenceWatch(1_000);
    expect(watch.silent(5, 0)).toBe(false);
    expect(watch.silent(5, 999)).toBe(false);
    expect(watch.silent(6, 1_500)).toBe(false);
    expect(watch.silent(6, 2_499)).toBe(false);
    expect(watch.silent(6, 2_500)).toBe(true);
  });
});
