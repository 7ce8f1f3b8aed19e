import { jetstream } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import { Effect, Exit, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AddressBook, makeAddressBook } from "../../../src/webhooks/notifier/AddressBook.js";
import { indexKey } from "../../../src/webhooks/store/kvKeys.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually } from "../../support/serviceHarness.js";

/**
 * Enough index entries that a deliver-last-per-subject watch (the KV library's default) takes the
 * broker longer to create than the low API timeout below: the notifier's address book must still
 * start, and stay exact.
 */
const ENTRIES = 50_000;
/** The JetStream API timeout of the book's bucket handle (the client's default is 5 s). */
const API_TIMEOUT_MS = 250;

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const member = (rev: number, isMember: boolean) => JSON.stringify({ rev, member: isMember });

let nats: TestNats;
let writer: KV;

beforeAll(async () => {
  nats = await startTestNats();
  writer = await new Kvm(await nats.connectAs("api")).open("webhook_addresses");
  // Address n is watched by webhook `wh<n % 7>`; every 10th entry is a tombstone (removed from its
  // webhook's list), and address 3's entry is deleted outright.
  for (let start = 1; start <= ENTRIES; start += 5_000) {
    const puts: Array<Promise<unknown>> = [];
    for (let n = start; n < Math.min(ENTRIES + 1, start + 5_000); n++)
      puts.push(writer.put(indexKey(address(n), `wh${n % 7}`), member(1, n % 10 !== 0)));
    await Promise.all(puts);
  }
  await writer.delete(indexKey(address(3), "wh3"));
}, 300_000);

afterAll(async () => {
  await nats?.stop();
});

describe("the notifier's address book on nats-server", () => {
  it(`behavior: starts over ${ENTRIES.toLocaleString("en")} index entries with a ${API_TIMEOUT_MS} ms JetStream API timeout, exact, then follows changes in order`, async () => {
    const nc = await nats.connectAs("api");
    const index = await new Kvm(jetstream(nc, { timeout: API_TIMEOUT_MS })).open("webhook_addresses");
    const scope = await Effect.runPromise(Scope.make());
    try {
      const book: AddressBook = await Effect.runPromise(
        Scope.extend(makeAddressBook(index), scope).pipe(
          Effect.timeoutFail({
            duration: "120 seconds",
            onTimeout: () => new Error("the book never started"),
          }),
        ),
      );
      const ids = (n: number) => [...book.webhooksFor(address(n))];
      expect(ids(1)).toEqual(["wh1"]);
      expect(ids(ENTRIES - 1)).toEqual([`wh${(ENTRIES - 1) % 7}`]);
      expect(ids(20)).toEqual([]); // a tombstone
      expect(ids(3)).toEqual([]); // deleted
      let watched = 0;
      for (let n = 1; n <= ENTRIES; n++) watched += book.webhooksFor(address(n)).length;
      expect(watched).toBe(ENTRIES - ENTRIES / 10 - 1);

      // After the start: a second webhook on address 1, address 2 removed then added back, address
      // 3 added again; the last change of each pair wins.
      await writer.put(indexKey(address(1), "wh9"), member(2, true));
      await writer.put(indexKey(address(2), "wh2"), member(2, false));
      await writer.put(indexKey(address(2), "wh2"), member(3, true));
      await writer.put(indexKey(address(3), "wh3"), member(2, true));
      await writer.put(indexKey(address(4), "wh4"), member(2, false));
      await eventually(
        async () => ids(1).length === 2 && ids(3).length === 1 && ids(4).length === 0,
        30_000,
        "changes after the start",
      );
      expect(ids(1).sort()).toEqual(["wh1", "wh9"]);
      expect(ids(2)).toEqual(["wh2"]);
      expect(ids(3)).toEqual(["wh3"]);
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void));
    }
  }, 300_000);
});
