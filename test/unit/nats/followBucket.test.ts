import type { KV, KvEntry } from "@nats-io/kv";
import { Effect, Logger, LogLevel, type Scope, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import { followBucket } from "../../../src/nats/followBucket.js";
import { REOPEN_FIRST_MS } from "../../../src/nats/reopenPause.js";
import { Feed } from "../../support/feed.js";

type Stored = { readonly revision: number; readonly operation: "PUT" | "DEL"; readonly value: string };

/**
 * A bucket held in memory: `stored` is what the stream holds per key (a value or a deletion
 * marker); each watch is a Feed the test ends; `keys` lists the keys holding a value, as the KV
 * library does.
 */
const memoryBucket = () => {
  const stored = new Map<string, Stored>();
  let revision = 0;
  const watches: Array<Feed<KvEntry>> = [];
  const entryOf = (key: string, held: Stored) =>
    ({
      bucket: "test",
      key,
      operation: held.operation,
      revision: held.revision,
      delta: 0,
      created: new Date(0),
      value: new TextEncoder().encode(held.value),
      string: () => held.value,
    }) as unknown as KvEntry;
  const kv = {
    watch: async () => {
      const feed = new Feed<KvEntry>();
      watches.push(feed);
      return feed;
    },
    keys: async () =>
      Object.assign(
        (async function* () {
          yield* [...stored].filter(([, held]) => held.operation === "PUT").map(([key]) => key);
        })(),
        { stop: () => {} },
      ),
    get: async (key: string) => {
      const held = stored.get(key);
      return held === undefined ? null : entryOf(key, held);
    },
  } as unknown as KV;
  return {
    kv,
    tail: { lastSeq: async () => revision, firstAfter: async () => undefined },
    /** Writes without any watch showing it (as while a watch is lost). */
    write: (key: string, operation: Stored["operation"], value = "") => {
      stored.set(key, { revision: ++revision, operation, value });
    },
    /** Removes a key's messages without a marker (a purge of its subject). */
    vanish: (key: string) => stored.delete(key),
    watches,
  };
};

/** Lets the fakes' promises and the follower's fibers run. */
const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5))).pipe(Effect.repeatN(3));

const run = <A>(effect: Effect.Effect<A, never, Scope.Scope>) =>
  Effect.runPromise(
    effect.pipe(
      Effect.scoped,
      Effect.provide(TestContext.TestContext),
      Logger.withMinimumLogLevel(LogLevel.None),
    ),
  );

describe("followBucket watching updates and listing", () => {
  it("behavior: after a watch ends, what the owner holds and the new listing lacks is settled by the leader: a deleted key is passed on as its marker, a vanished key reported, a newer one kept", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        bucket.write("hook.a", "PUT", "a1");
        bucket.write("hook.b", "PUT", "b1");
        bucket.write("hook.c", "PUT", "c1");
        const held = new Map<string, { revision: number; value: string | undefined }>();
        const vanished: Array<string> = [];
        const onEntry = (entry: KvEntry) => {
          const before = held.get(entry.key);
          if (before === undefined || before.revision < entry.revision)
            held.set(entry.key, {
              revision: entry.revision,
              value: entry.operation === "PUT" ? entry.string() : undefined,
            });
        };
        const reconcile = {
          held: () =>
            [...held].filter(([, h]) => h.value !== undefined).map(([key, h]) => [key, h.revision] as const),
          vanished: (key: string) => {
            vanished.push(key);
            held.delete(key);
          },
        };
        const ready = yield* followBucket(
          bucket.kv,
          { key: "hook.>", stored: { by: "listing", reconcile }, tail: bucket.tail },
          onEntry,
        );
        yield* ready;
        expect([...held.keys()].sort()).toEqual(["hook.a", "hook.b", "hook.c"]);

        // Unseen by the watch: b deleted, c's messages gone; this process's own write of d, far ahead.
        bucket.write("hook.b", "DEL");
        bucket.vanish("hook.c");
        held.set("hook.d", { revision: 1_000, value: "mine" });
        bucket.watches[0]!.stop();
        yield* settle;
        yield* TestClock.adjust(REOPEN_FIRST_MS);
        yield* settle;

        expect(bucket.watches).toHaveLength(2);
        expect(held.get("hook.a")?.value).toBe("a1");
        expect(held.get("hook.b")).toEqual({ revision: 4, value: undefined });
        expect(vanished).toEqual(["hook.c"]);
        expect(held.get("hook.d")?.value).toBe("mine");
      }),
    ));

  it("behavior: ready only once the first listing has been read, and the watch's own entries do not make it ready", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        bucket.write("hook.a", "PUT", "a1");
        let gate: () => void = () => undefined;
        const opened = new Promise<void>((resolve) => {
          gate = resolve;
        });
        const slowKeys = bucket.kv.keys.bind(bucket.kv);
        const kv = Object.assign(Object.create(bucket.kv) as KV, {
          keys: async (filter: string) => {
            await opened;
            return slowKeys(filter);
          },
        });
        const seen: Array<string> = [];
        const ready = yield* followBucket(kv, { key: "hook.>", stored: { by: "listing" } }, (entry) => {
          seen.push(entry.key);
        });
        const waiting = yield* Effect.fork(ready);
        yield* settle;
        bucket.watches[0]!.push({
          key: "hook.z",
          operation: "PUT",
          revision: 9,
          delta: 0,
          string: () => "",
        } as unknown as KvEntry);
        yield* settle;
        expect(waiting.unsafePoll()).toBeNull();
        gate();
        yield* settle;
        expect(waiting.unsafePoll()).not.toBeNull();
        expect(seen).toEqual(["hook.z", "hook.a"]);
      }),
    ));
});

describe("followBucket replaying", () => {
  it("behavior: an empty filter becomes ready through its probe of live keys even when the first watch ends before the probe answers", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        let answer: () => void = () => undefined;
        const probed = new Promise<void>((resolve) => {
          answer = resolve;
        });
        const keys = bucket.kv.keys.bind(bucket.kv);
        const kv = Object.assign(Object.create(bucket.kv) as KV, {
          keys: async (filter: string) => {
            await probed;
            return keys(filter);
          },
        });
        const ready = yield* followBucket(kv, { key: "hash.>" }, () => undefined);
        const waiting = yield* Effect.fork(ready);
        yield* settle;
        bucket.watches[0]!.stop();
        yield* settle;
        yield* TestClock.adjust(REOPEN_FIRST_MS);
        yield* settle;
        expect(bucket.watches).toHaveLength(2);
        answer();
        yield* settle;
        expect(waiting.unsafePoll()).not.toBeNull();
      }),
    ));

  it("error: an entry its owner throws on is skipped, and the follower goes on with the next ones", () =>
    run(
      Effect.gen(function* () {
        const bucket = memoryBucket();
        const taken: Array<string> = [];
        const ready = yield* followBucket(bucket.kv, { key: ">" }, (entry) => {
          if (entry.key === "bad") throw new Error("cannot take it");
          taken.push(entry.key);
        });
        const feed = bucket.watches[0]!;
        const entry = (key: string, revision: number, delta: number) =>
          ({ key, operation: "PUT", revision, delta, string: () => "" }) as unknown as KvEntry;
        feed.push(entry("a", 1, 2));
        feed.push(entry("bad", 2, 1));
        feed.push(entry("c", 3, 0));
        yield* ready;
        feed.push(entry("d", 4, 0));
        yield* settle;
        expect(taken).toEqual(["a", "c", "d"]);
      }),
    ));
});
