import { type KV, Kvm } from "@nats-io/kv";
import { Effect, Exit, Schema, Scope } from "effect";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type BucketMirror, type MirrorOptions, mirrorBucket } from "../../../src/nats/mirrorBucket.js";
import { startBareNats } from "../../support/bareNats.js";
import { eventually } from "../../support/serviceHarness.js";
import {
  withEndingWatches,
  withSilentWatches,
  withStallableStreamReads,
  withStallableWatches,
} from "../../support/silentWatch.js";

let nats: Awaited<ReturnType<typeof startBareNats>>;
let kvm: Kvm;
let buckets = 0;
const scopes: Array<Scope.CloseableScope> = [];

beforeAll(async () => {
  nats = await startBareNats();
  kvm = new Kvm(nats.nc);
});

afterEach(async () => {
  for (const scope of scopes.splice(0)) await Effect.runPromise(Scope.close(scope, Exit.void));
});

afterAll(async () => {
  await nats?.stop();
});

const Item = Schema.parseJson(Schema.Struct({ n: Schema.Number }));
const item = (n: number) => JSON.stringify({ n });

const start = async (kv: KV, options: MirrorOptions<{ readonly n: number }> = { key: ">", decode: Item }) => {
  const scope = await Effect.runPromise(Scope.make());
  scopes.push(scope);
  return Effect.runPromise(Scope.extend(mirrorBucket(kv, options), scope));
};

/** Waits for readiness, failing the test (instead of hanging) when it does not come within 2 s. */
const ready = (mirror: BucketMirror<unknown>) =>
  Effect.runPromise(
    mirror.ready.pipe(
      Effect.timeoutFail({
        duration: "2 seconds",
        onTimeout: () => new Error("the mirror never became ready"),
      }),
    ),
  );

const snapshot = (mirror: BucketMirror<{ readonly n: number }>) =>
  Object.fromEntries(mirror.entries().map((e) => [e.key, e.value.n]));

// A bucket keeping 5 revisions per key is read through the KV library's watch; one
// keeping a single value per key, like `presence`, from its stream's start: both must agree.
describe.each([5, 1])("mirrorBucket on nats-server, %i revisions kept per key", (history) => {
  const bucket = () => kvm.create(`mirror_${++buckets}`, { history });

  it("default: a bucket with updates, deletions and purges is mirrored as its live values, then ready", async () => {
    const kv = await bucket();
    for (const key of ["a", "b", "c", "d"]) await kv.put(key, item(1));
    await kv.put("a", item(2));
    await kv.delete("b");
    await kv.purge("c");
    await kv.put("d", item(3));
    const mirror = await start(kv);
    await ready(mirror);
    expect(snapshot(mirror)).toEqual({ a: 2, d: 3 });
  });

  it("behavior: ready when the last stored entry is a deletion", async () => {
    const kv = await bucket();
    await kv.put("a", item(1));
    await kv.put("b", item(1));
    await kv.delete("b");
    const mirror = await start(kv);
    await ready(mirror);
    expect(snapshot(mirror)).toEqual({ a: 1 });
  });

  it("behavior: ready over a bucket holding only deletions, and over an empty bucket", async () => {
    const deleted = await bucket();
    await deleted.put("a", item(1));
    await deleted.delete("a");
    await deleted.put("b", item(1));
    await deleted.purge("b");
    const empty = await bucket();
    const [overDeleted, overEmpty] = [await start(deleted), await start(empty)];
    await ready(overDeleted);
    await ready(overEmpty);
    expect(overDeleted.values()).toEqual([]);
    expect(overEmpty.values()).toEqual([]);
  });

  it("behavior: a prefix mirror drops the prefix, ignores other keys, and is ready when its prefix is empty", async () => {
    const kv = await bucket();
    await kv.put("hash.x", item(1));
    await kv.put("id.x", item(9));
    await kv.put("id.y", item(9));
    const hashes = await start(kv, { key: "hash.>", decode: Item });
    const teams = await start(kv, { key: "team.>", decode: Item });
    await ready(hashes);
    await ready(teams);
    expect(snapshot(hashes)).toEqual({ x: 1 });
    expect(teams.values()).toEqual([]);
  });

  it("behavior: keeps following puts, updates, deletes and purges after the initial read", async () => {
    const kv = await bucket();
    await kv.put("a", item(1));
    const mirror = await start(kv);
    await ready(mirror);
    await kv.put("b", item(1));
    await kv.put("a", item(2));
    await eventually(async () => mirror.get("a")?.n === 2 && mirror.get("b")?.n === 1, 30_000, "puts");
    await kv.delete("a");
    await kv.purge("b");
    await eventually(async () => mirror.values().length === 0, 30_000, "deletions");
    await kv.put("a", item(3));
    await eventually(async () => mirror.get("a")?.n === 3, 30_000, "a put after a delete");
  });

  it("behavior: a watch that ends on its own is opened again, with no stall check, and the mirror follows every later change", async () => {
    const kv = await bucket();
    await kv.put("a", item(1));
    await kv.put("b", item(1));
    // A bucket with one value per key is read from its stream's start, the other one through a watch.
    const ending =
      history === 1 ? withStallableStreamReads(kv, { ends: true }) : withStallableWatches(kv, { ends: true });
    const mirror = await start(ending.kv);
    await ready(mirror);
    ending.stall();
    await kv.put("a", item(2));
    await kv.delete("b");
    await kv.put("c", item(1));
    await eventually(
      async () => mirror.get("a")?.n === 2 && mirror.get("b") === undefined && mirror.get("c")?.n === 1,
      10_000,
      "the changes after the watch ended",
    );
    expect(snapshot(mirror)).toEqual({ a: 2, c: 1 });
    expect(ending.opened()).toBe(2);
  });
});

describe("mirrorBucket whose watches keep ending", () => {
  it("behavior: a watch that ends at once, again and again, is opened again after pauses that double, not in a loop", async () => {
    const kv = await kvm.create(`ending${buckets++}`, { history: 5 });
    await kv.put("a", item(1));
    const ending = withEndingWatches(kv);
    await start(ending.kv);
    await eventually(async () => ending.openedAt().length >= 4, 10_000, "the fourth watch");
    const [first, second, third, fourth] = ending.openedAt() as [number, number, number, number];
    // 200, 400 and 800 ms (reopenPause.ts), less a timer's rounding; without them a watch a round trip.
    expect(second - first).toBeGreaterThanOrEqual(190);
    expect(third - second).toBeGreaterThanOrEqual(390);
    expect(fourth - third).toBeGreaterThanOrEqual(790);
  });
});

describe("mirrorBucket with a stall check", () => {
  const CHECK_MS = 300;

  it("behavior: a watch that stalls without ending is opened again, and the mirror catches up with what was written meanwhile", async () => {
    const kv = await kvm.create(`stall${buckets++}`, { history: 1 });
    await kv.put("month.a", item(1));
    const mirror = await start(withSilentWatches(kv, 1), {
      key: "month.>",
      decode: Item,
      stallCheckMs: CHECK_MS,
    });
    await kv.put("month.a", item(2));
    await kv.put("other", item(9));
    const written = Date.now();
    // The silent first watch showed nothing; within two checks the new one shows the current value.
    await eventually(
      async () => mirror.get("a")?.n === 2,
      10_000,
      "the value written while the watch was silent",
    );
    expect(Date.now() - written).toBeLessThan(CHECK_MS * 2 + 2_000);
    await ready(mirror);
    await kv.put("month.a", item(3));
    await eventually(async () => mirror.get("a")?.n === 3, 10_000, "a later put");
    expect(mirror.get("other")).toBeUndefined();
  });

  it("behavior: a quiet watch, or writes only to other keys, is left alone", async () => {
    const kv = await kvm.create(`stall${buckets++}`, { history: 1 });
    await kv.put("month.a", item(1));
    let opened = 0;
    const counting = new Proxy(kv, {
      get: (target, name, receiver) =>
        name === "watch"
          ? (...args: Parameters<KV["watch"]>) => {
              opened++;
              return target.watch(...args);
            }
          : Reflect.get(target, name, receiver),
    });
    const mirror = await start(counting, { key: "month.>", decode: Item, stallCheckMs: CHECK_MS });
    await ready(mirror);
    for (let i = 0; i < 5; i++) {
      await kv.put(`hour.${i}`, item(i));
      await new Promise((r) => setTimeout(r, CHECK_MS));
    }
    expect(opened).toBe(1);
    expect(mirror.get("a")?.n).toBe(1);
  });
});
