import type { KV, KvWatchEntry } from "@nats-io/kv";
import { Effect, Exit, Fiber, Schema, Scope } from "effect";
import { afterEach, describe, expect, it } from "vitest";
import { type BucketMirror, type MirrorOptions, mirrorBucket } from "../../../src/nats/mirrorBucket.js";
import { Feed } from "../../support/feed.js";

type Op = "PUT" | "DEL" | "PURGE";

let revision = 0;
const entry = (key: string, operation: Op, value: string, delta: number) =>
  ({
    bucket: "test",
    key,
    operation,
    delta,
    revision: ++revision,
    created: new Date(1_700_000_000_000 + revision),
    string: () => value,
  }) as unknown as KvWatchEntry;

/** A bucket whose watch the test feeds, and whose `keys` probe answers `liveKeys`. */
const fakeBucket = (liveKeys: ReadonlyArray<string>, failingProbes = 0) => {
  const feed = new Feed<KvWatchEntry>();
  let probes = 0;
  const kv = {
    watch: async () => feed,
    keys: async () => {
      if (probes++ < failingProbes) throw new Error("no responders");
      const keys = [...liveKeys];
      return Object.assign(
        (async function* () {
          yield* keys;
        })(),
        { stop: () => {} },
      );
    },
  } as unknown as KV;
  return { kv, feed };
};

const Item = Schema.parseJson(Schema.Struct({ n: Schema.Number }));

const scopes: Array<Scope.CloseableScope> = [];
afterEach(async () => {
  for (const scope of scopes.splice(0)) await Effect.runPromise(Scope.close(scope, Exit.void));
});

const start = async <A>(kv: KV, options: MirrorOptions<A>): Promise<BucketMirror<A>> => {
  const scope = await Effect.runPromise(Scope.make());
  scopes.push(scope);
  return Effect.runPromise(Scope.extend(mirrorBucket(kv, options), scope));
};

/** Whether `ready` has completed, after letting pending fibers run. */
const isReady = async (mirror: BucketMirror<unknown>) => {
  const fiber = Effect.runFork(mirror.ready);
  await new Promise((r) => setImmediate(r));
  const done = fiber.unsafePoll() !== null;
  await Effect.runPromise(Fiber.interrupt(fiber));
  return done;
};

describe("mirrorBucket", () => {
  it("default: mirrors decoded values under the filter's prefix, with their store time", async () => {
    const { kv, feed } = fakeBucket(["hash.a"]);
    const mirror = await start(kv, { key: "hash.>", decode: Item });
    feed.push(entry("hash.a", "PUT", '{"n":1}', 1));
    feed.push(entry("hash.b", "PUT", '{"n":2}', 0));
    await Effect.runPromise(mirror.ready);
    expect(mirror.get("a")).toEqual({ n: 1 });
    expect(mirror.values()).toEqual([{ n: 1 }, { n: 2 }]);
    expect(mirror.entries().map((e) => [e.key, e.created.getTime() > 0, e.revision > 0])).toEqual([
      ["a", true, true],
      ["b", true, true],
    ]);
  });

  it("behavior: deletes and purges remove a value; a later put brings it back", async () => {
    const { kv, feed } = fakeBucket(["a", "b"]);
    const mirror = await start(kv, { key: ">", decode: Item });
    feed.push(entry("a", "PUT", '{"n":1}', 1));
    feed.push(entry("b", "PUT", '{"n":2}', 0));
    feed.push(entry("a", "DEL", "", 0));
    feed.push(entry("b", "PURGE", "", 0));
    await feed.idle();
    expect(mirror.values()).toEqual([]);
    feed.push(entry("a", "PUT", '{"n":3}', 0));
    await feed.idle();
    expect(mirror.get("a")).toEqual({ n: 3 });
  });

  it("behavior: an updated value replaces the old one", async () => {
    const { kv, feed } = fakeBucket(["a"]);
    const mirror = await start(kv, { key: ">", decode: Item });
    feed.push(entry("a", "PUT", '{"n":1}', 0));
    feed.push(entry("a", "PUT", '{"n":2}', 0));
    await feed.idle();
    expect(mirror.values()).toEqual([{ n: 2 }]);
  });

  it("behavior: ready only after the initial read's last entry, also when that entry is a deletion", async () => {
    const { kv, feed } = fakeBucket(["a"]);
    const mirror = await start(kv, { key: ">", decode: Item });
    feed.push(entry("a", "PUT", '{"n":1}', 2));
    feed.push(entry("b", "DEL", "", 1));
    await feed.idle();
    expect(await isReady(mirror)).toBe(false);
    feed.push(entry("c", "DEL", "", 0));
    await Effect.runPromise(mirror.ready);
    expect(mirror.values()).toEqual([{ n: 1 }]);
    expect(await isReady(mirror)).toBe(true);
  });

  it("behavior: ready at once when no key is live, even if the watch delivers nothing", async () => {
    const { kv } = fakeBucket([]);
    const mirror = await start(kv, { key: ">", decode: Item });
    await Effect.runPromise(mirror.ready);
    expect(mirror.values()).toEqual([]);
  });

  it("behavior: a keys probe that fails is tried again, so an empty bucket still becomes ready", async () => {
    const { kv } = fakeBucket([], 1);
    const mirror = await start(kv, { key: ">", decode: Item });
    await Effect.runPromise(mirror.ready);
    expect(mirror.values()).toEqual([]);
  });

  it("error: a value that does not decode counts as absent", async () => {
    const { kv, feed } = fakeBucket(["a"]);
    const mirror = await start(kv, { key: ">", decode: Item });
    feed.push(entry("a", "PUT", '{"n":1}', 0));
    feed.push(entry("a", "PUT", "not json", 0));
    feed.push(entry("b", "PUT", '{"n":"two"}', 0));
    await feed.idle();
    expect(mirror.get("a")).toBeUndefined();
    expect(mirror.values()).toEqual([]);
  });
});
