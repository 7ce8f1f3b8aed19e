import { type KV, type KvEntry, Kvm } from "@nats-io/kv";
import { Effect, Exit, Scope } from "effect";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FollowOptions, followBucket } from "../../../src/nats/followBucket.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually } from "../../support/serviceHarness.js";
import {
  withCutListings,
  withStallableStreamReads,
  withStallableWatches,
} from "../../support/silentWatch.js";

/**
 * The contract of the one bucket follower (src/nats/followBucket.ts), which the key directory, the
 * usage and presence mirrors, the webhook catalog, the address book, the webhook supervisor and the
 * outbox partitions all follow their buckets through: on nats-server with the real nats.conf, as
 * the api user (whose grants the stall check and the pulls need), in each way it reads what is stored.
 */

/** The follower's watch check in this test, ms (5 s in the service). */
const CHECK_MS = 300;

let nats: TestNats;
let writers: Record<string, KV>;
const scopes: Array<Scope.CloseableScope> = [];

beforeAll(async () => {
  nats = await startTestNats();
  const kvm = new Kvm(await nats.connectAs("api"));
  writers = { webhooks: await kvm.open("webhooks") };
});

afterEach(async () => {
  for (const scope of scopes.splice(0)) await Effect.runPromise(Scope.close(scope, Exit.void));
});

afterAll(async () => {
  await nats?.stop();
});

/** What a follower's owner holds: the newest revision of each key, as every caller keeps it. */
class Held {
  readonly #byKey = new Map<string, { readonly revision: number; readonly value: string | undefined }>();
  readonly apply = (entry: KvEntry) => {
    const held = this.#byKey.get(entry.key);
    if (held !== undefined && held.revision >= entry.revision) return;
    this.#byKey.set(entry.key, {
      revision: entry.revision,
      value: entry.operation === "PUT" ? entry.string() : undefined,
    });
  };
  /** Stands for a write this process made and reported itself, before any watch showed it. */
  own(key: string, revision: number, value: string) {
    this.#byKey.set(key, { revision, value });
  }
  valueOf(key: string) {
    return this.#byKey.get(key)?.value;
  }
  readonly reconcile = {
    held: () =>
      [...this.#byKey]
        .filter(([, held]) => held.value !== undefined)
        .map(([key, held]) => [key, held.revision] as const),
    vanished: (key: string) => this.#byKey.delete(key),
  };
}

const follow = async (kv: KV, options: FollowOptions, held = new Held()) => {
  const scope = await Effect.runPromise(Scope.make());
  scopes.push(scope);
  const ready = await Effect.runPromise(Scope.extend(followBucket(kv, options, held.apply), scope));
  await Effect.runPromise(
    ready.pipe(Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("never ready") })),
  );
  return held;
};

let prefixes = 0;

/** The three ways of reading what is stored, each over the bucket a caller uses it on. */
const ways = [
  {
    way: "replaying a watch of a prefix (keys, teams, month totals, webhook catalog)",
    bucket: "webhooks",
    key: () => `hook.r${++prefixes}.>` as const,
    stored: () => ({ by: "replay" as const }),
    stallable: withStallableWatches,
    pullBatch: undefined,
  },
  {
    way: "replaying the whole stream of a one-value bucket (presence, ingest status)",
    bucket: "webhooks",
    key: () => ">" as const,
    stored: () => ({ by: "replay" as const }),
    stallable: withStallableStreamReads,
    pullBatch: undefined,
  },
  {
    way: "pulling each key's last entry a few messages at a time (address book, webhook catalog's counts)",
    bucket: "webhooks",
    key: () => `addresses.p${++prefixes}.>` as const,
    stored: () => ({ by: "replay" as const }),
    stallable: withStallableStreamReads,
    pullBatch: 2,
  },
  {
    way: "watching updates and listing (webhook supervisor, outbox partitions)",
    bucket: "webhooks",
    key: () => `hook.l${++prefixes}.>` as const,
    stored: (held: Held) => ({ by: "listing" as const, reconcile: held.reconcile }),
    stallable: withStallableWatches,
    pullBatch: undefined,
  },
] as const;

/** The option when the way has it. */
const bounded = (pullBatch: number | undefined) => (pullBatch === undefined ? {} : { pullBatch });

describe.each(ways)("followBucket $way", ({ bucket, key, stored, stallable, pullBatch }) => {
  it("behavior: values changed, deleted and purged and keys added while the watch showed nothing are followed once the check opens a new one", async () => {
    const filter = key();
    const k = (name: string) => `${filter.slice(0, -1)}${name}`;
    const writer = writers[bucket]!;
    for (const name of ["kept", "changed", "deleted", "purged"]) await writer.put(k(name), "v1");
    const api = await nats.connectAs("api");
    const { kv, stall, opened } = stallable(await new Kvm(api).open(bucket));
    const held = new Held();
    await follow(
      kv,
      { key: filter, stored: stored(held), stallCheckMs: CHECK_MS, ...bounded(pullBatch) },
      held,
    );
    expect(held.valueOf(k("deleted"))).toBe("v1");

    stall();
    await writer.put(k("changed"), "v2");
    await writer.delete(k("deleted"));
    await writer.purge(k("purged"));
    await writer.put(k("added"), "v1");
    const written = Date.now();
    await eventually(
      async () =>
        held.valueOf(k("changed")) === "v2" &&
        held.valueOf(k("deleted")) === undefined &&
        held.valueOf(k("purged")) === undefined &&
        held.valueOf(k("added")) === "v1",
      10_000,
      "the changes made during the stall",
    );
    // Within two checks (plus the round trips), not at some much later time.
    expect(Date.now() - written).toBeLessThan(CHECK_MS * 2 + 2_000);
    expect(held.valueOf(k("kept"))).toBe("v1");
    expect(opened()).toBeGreaterThanOrEqual(2);
    // The new watch follows later changes as usual.
    await writer.put(k("kept"), "v3");
    await eventually(async () => held.valueOf(k("kept")) === "v3", 5_000, "a later change");
  }, 60_000);

  it("behavior: a watch that ends on its own is opened again without any stall check, and later changes are followed", async () => {
    const filter = key();
    const k = (name: string) => `${filter.slice(0, -1)}${name}`;
    const writer = writers[bucket]!;
    await writer.put(k("a"), "v1");
    const { kv, stall, opened } = stallable(await new Kvm(await nats.connectAs("api")).open(bucket), {
      ends: true,
    });
    const held = new Held();
    await follow(kv, { key: filter, stored: stored(held), ...bounded(pullBatch) }, held);
    stall();
    // The first change after the stall ends the watch; the next watch shows it.
    await writer.put(k("a"), "v2");
    await eventually(async () => held.valueOf(k("a")) === "v2", 10_000, "the change that ended the watch");
    await writer.put(k("b"), "v1");
    await eventually(async () => held.valueOf(k("b")) === "v1", 10_000, "a later change");
    expect(opened()).toBe(2);
  }, 60_000);
});

describe("followBucket watching updates and listing, after a new watch", () => {
  it("behavior: a key held from a write newer than where the new watch began is kept, though the listing did not have it yet", async () => {
    const filter = `hook.n${++prefixes}.>` as const;
    const k = (name: string) => `${filter.slice(0, -1)}${name}`;
    const { kv, stall } = withStallableWatches(await new Kvm(await nats.connectAs("api")).open("webhooks"));
    const held = new Held();
    await follow(
      kv,
      { key: filter, stored: { by: "listing", reconcile: held.reconcile }, stallCheckMs: CHECK_MS },
      held,
    );
    // What a handler of this process reports of its own write, at a revision far past the stream's end.
    held.own(k("local"), 1_000_000, "mine");
    stall();
    await writers.webhooks!.put(k("other"), "v1");
    await eventually(async () => held.valueOf(k("other")) === "v1", 10_000, "the other key");
    expect(held.valueOf(k("local"))).toBe("mine");
  }, 60_000);

  it("failure: a listing cut short drops only the held keys the stream's leader finds deleted", async () => {
    const filter = `hook.c${++prefixes}.>` as const;
    const k = (name: string) => `${filter.slice(0, -1)}${name}`;
    const writer = writers.webhooks!;
    await writer.put(k("live"), "v1");
    await writer.put(k("gone"), "v1");
    const { kv, stall } = withStallableWatches(
      withCutListings(await new Kvm(await nats.connectAs("api")).open("webhooks")),
    );
    const held = new Held();
    await follow(
      kv,
      { key: filter, stored: { by: "listing", reconcile: held.reconcile }, stallCheckMs: CHECK_MS },
      held,
    );
    expect(held.valueOf(k("gone"))).toBe("v1");
    stall();
    // The deletion is the unshown message; the listing after the new watch comes back empty.
    await writer.delete(k("gone"));
    await eventually(async () => held.valueOf(k("gone")) === undefined, 10_000, "the deletion");
    expect(held.valueOf(k("live"))).toBe("v1");
  }, 60_000);
});

describe("followBucket replaying a large bucket", () => {
  it("behavior: a follower still replaying while new entries arrive is slow, not stalled: it is not opened again", async () => {
    const ENTRIES = 20_000;
    const writer = writers.webhooks!;
    for (let start = 0; start < ENTRIES; start += 5_000)
      await Promise.all(Array.from({ length: 5_000 }, (_, i) => writer.put(`big.${start + i}`, "v1")));
    const { kv, opened } = withStallableStreamReads(
      await new Kvm(await nats.connectAs("api")).open("webhooks"),
    );
    // New entries every 50 ms while the follower starts: each is a message its replay has not shown yet.
    let writing = true;
    let written = 0;
    const writes = (async () => {
      while (writing) {
        await writer.put(`new.${written}`, "v1");
        written++;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      const held = await follow(kv, { key: ">", stallCheckMs: CHECK_MS });
      // Several checks after the replay, with writes still coming.
      await new Promise((r) => setTimeout(r, 4 * CHECK_MS));
      writing = false;
      await writes;
      await eventually(async () => held.valueOf(`new.${written - 1}`) === "v1", 10_000, "the last new entry");
      expect(held.valueOf(`big.${ENTRIES - 1}`)).toBe("v1");
      expect(opened()).toBe(1);
    } finally {
      writing = false;
      await writes;
    }
  }, 120_000);
});
