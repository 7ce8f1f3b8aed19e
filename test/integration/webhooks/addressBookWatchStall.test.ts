import { type KV, Kvm } from "@nats-io/kv";
import { Effect, Exit, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeAddressBook } from "../../../src/webhooks/notifier/AddressBook.js";
import { indexKey } from "../../../src/webhooks/store/kvKeys.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually } from "../../support/serviceHarness.js";
import { withStallableStreamReads } from "../../support/silentWatch.js";

/** The book's watch check in this test, ms (5 s in the service). */
const CHECK_MS = 300;

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const member = (rev: number, isMember: boolean) => JSON.stringify({ rev, member: isMember });

let nats: TestNats;
let writer: KV;

beforeAll(async () => {
  nats = await startTestNats();
  writer = await new Kvm(await nats.connectAs("api")).open("webhook_addresses");
});

afterAll(async () => {
  await nats?.stop();
});

describe("the notifier's address book, with its watch stalled", () => {
  it("behavior: addresses added, removed and deleted while the watch showed nothing are matched as the index says once the check opens it again", async () => {
    await writer.put(indexKey(address(1), "wh-a"), member(1, true));
    await writer.put(indexKey(address(2), "wh-b"), member(1, true));
    await writer.put(indexKey(address(3), "wh-c"), member(1, true));

    // As the api user of the real nats.conf, whose grants the check needs.
    const api = await nats.connectAs("api");
    const { kv, stall, opened } = withStallableStreamReads(await new Kvm(api).open("webhook_addresses"));
    const scope = await Effect.runPromise(Scope.make());
    try {
      const book = await Effect.runPromise(Scope.extend(makeAddressBook(kv, CHECK_MS), scope));
      const ids = (n: number) => [...book.webhooksFor(address(n))].sort();
      expect(ids(1)).toEqual(["wh-a"]);
      expect(ids(2)).toEqual(["wh-b"]);

      // The watch stalls; meanwhile a webhook watches a new address, one stops watching (a
      // tombstone), an entry is deleted outright, and address 1 gains a second webhook.
      stall();
      await writer.put(indexKey(address(4), "wh-d"), member(1, true));
      await writer.put(indexKey(address(2), "wh-b"), member(2, false));
      await writer.delete(indexKey(address(3), "wh-c"));
      await writer.put(indexKey(address(1), "wh-e"), member(1, true));

      await eventually(
        async () => ids(4).length === 1 && ids(2).length === 0 && ids(3).length === 0 && ids(1).length === 2,
        10_000,
        "the changes in the book",
      );
      expect(ids(1)).toEqual(["wh-a", "wh-e"]);
      expect(ids(4)).toEqual(["wh-d"]);
      // The stall took effect on the follower's own read, and the check made a new one.
      expect(opened()).toBeGreaterThanOrEqual(2);
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void));
    }
  }, 60_000);
  it("behavior: a book still replaying a large index while new entries arrive is slow, not stalled: it is not opened again", async () => {
    const ENTRIES = 20_000;
    for (let start = 0; start < ENTRIES; start += 5_000)
      await Promise.all(
        Array.from({ length: 5_000 }, (_, i) =>
          writer.put(indexKey(address(10_000 + start + i), "wh-big"), member(1, true)),
        ),
      );
    const api = await nats.connectAs("api");
    const { kv, opened } = withStallableStreamReads(await new Kvm(api).open("webhook_addresses"));
    const scope = await Effect.runPromise(Scope.make());
    // New entries every 50 ms while the book starts: each is a message its replay has not shown yet.
    let writing = true;
    let written = 0;
    const writes = (async () => {
      while (writing) {
        await writer.put(indexKey(address(100_000 + written), "wh-new"), member(1, true));
        written++;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      const book = await Effect.runPromise(Scope.extend(makeAddressBook(kv, CHECK_MS), scope));
      // Several checks after the replay, with writes still coming.
      await new Promise((r) => setTimeout(r, 4 * CHECK_MS));
      writing = false;
      await writes;
      await eventually(
        async () => book.webhooksFor(address(100_000 + written - 1)).length === 1,
        10_000,
        "the last new entry",
      );
      expect(book.webhooksFor(address(10_000 + ENTRIES - 1))).toEqual(["wh-big"]);
      expect(opened()).toBe(1);
    } finally {
      writing = false;
      await writes;
      await Effect.runPromise(Scope.close(scope, Exit.void));
    }
  }, 120_000);
});
