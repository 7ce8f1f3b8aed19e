import { jetstream } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import { Effect, Either, Exit, Scope } from "effect";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChainConfig } from "../../../src/chains/ChainsConfig.js";
import type { ChainBlock } from "../../../src/domain/ChainBlock.js";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { normaliseAddresses } from "../../../src/webhooks/addressList.js";
import { type AddressBook, makeAddressBook } from "../../../src/webhooks/notifier/AddressBook.js";
import { matchBlock } from "../../../src/webhooks/notifier/matchBlock.js";
import { makeSecretSealer } from "../../../src/webhooks/secrets/secretSealing.js";
import * as WebhookStore from "../../../src/webhooks/WebhookStore.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually, TEST_WEBHOOK_SECRET_KEY } from "../../support/serviceHarness.js";
import { withStallableStreamReads } from "../../support/silentWatch.js";
import { syntheticBlock } from "../../support/syntheticBlocks.js";
import { webhookRecord } from "../../support/webhookRecordFixture.js";

/**
 * The notifier's address book on nats-server with the real nats.conf, fed by the real webhook
 * store: it follows the webhooks' address lists (one KV entry per webhook) and applies each new
 * list as the difference from the one it holds.
 */

const TEAM = "team-book";
/** The JetStream API timeout of the book's bucket handle in the first test (the client's default is 5 s). */
const API_TIMEOUT_MS = 250;
/** The book's watch check in the restart test, ms (5 s in the service). */
const CHECK_MS = 300;

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => address(from + i));
const webhookId = (n: number) => `01900000-0000-7000-8000-${String(n).padStart(12, "0")}`;

let nats: TestNats;
let webhooks: KV;
let store: ReturnType<typeof WebhookStore.make>;
const scopes: Array<Scope.CloseableScope> = [];

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect);

/** A new `transactions` webhook of the team watching `addresses`, stored as the API stores it. */
const create = async (n: number, addresses: ReadonlyArray<string>) => {
  const id = webhookId(n);
  await run(
    store.create(
      webhookRecord({ id, team_id: TEAM, type: "transactions" }),
      normaliseAddresses(addresses),
      1_000,
    ),
  );
  return id;
};

/** Replaces a webhook's list as PUT .../addresses does (one revision-checked write). */
const replace = (id: string, addresses: ReadonlyArray<string>) =>
  run(store.changeAddresses(TEAM, id, () => Either.right(normaliseAddresses(addresses))));

/** A book as an API process starts it, until the test ends. */
const openBook = async (kv: KV, watchCheckMs?: number): Promise<AddressBook> => {
  const scope = await run(Scope.make());
  scopes.push(scope);
  return run(
    Scope.extend(makeAddressBook(kv, watchCheckMs), scope).pipe(
      Effect.timeoutFail({ duration: "120 seconds", onTimeout: () => new Error("the book never started") }),
    ),
  );
};

const watchers = (book: AddressBook, a: string) => [...book.webhooksFor(a)].sort();

beforeAll(async () => {
  nats = await startTestNats();
  webhooks = await run(openBucket(await nats.connectAs("api"), "webhooks"));
  store = WebhookStore.make({ webhooks, sealer: makeSecretSealer([TEST_WEBHOOK_SECRET_KEY]) });
});

afterEach(async () => {
  for (const scope of scopes.splice(0)) await run(Scope.close(scope, Exit.void));
});

afterAll(async () => {
  await nats?.stop();
});

describe("the notifier's address book on nats-server", () => {
  it("behavior: loads 1,000,000 addresses over ten lists of 100,000 exactly, with a deleted webhook and a list changed twenty times in a row", async () => {
    // Webhook w watches [90,000 w, 90,000 w + 100,000): each shares 10,000 addresses with the next.
    const LISTS = 10;
    for (let w = 0; w < LISTS; w++) await create(w, range(90_000 * w, 90_000 * w + 100_000));
    const deleted = await create(100, range(5_000_000, 5_000_010));
    await run(store.remove(TEAM, deleted));
    const changed = await create(101, [address(6_000_000)]);
    for (let round = 1; round <= 20; round++) await replace(changed, range(6_000_000, 6_000_000 + round));

    // A low JetStream API timeout: the book's consumer is made at once, whatever the lists hold.
    const nc = await nats.connectAs("api");
    const book = await openBook(await new Kvm(jetstream(nc, { timeout: API_TIMEOUT_MS })).open("webhooks"));
    const last = 90_000 * (LISTS - 1) + 100_000;
    for (let n = 0; n < last; n++) {
      const expected = [Math.floor(n / 90_000) - 1, Math.floor(n / 90_000)]
        .filter((w) => w >= 0 && w < LISTS && n >= 90_000 * w && n < 90_000 * w + 100_000)
        .map(webhookId);
      const found = book.webhooksFor(address(n));
      // Compared one by one only when they differ: a million `toEqual`s would take minutes.
      if (found.length !== expected.length || !expected.every((id) => found.includes(id)))
        expect(watchers(book, address(n)), address(n)).toEqual(expected);
    }
    expect(watchers(book, address(last))).toEqual([]);
    expect(watchers(book, address(5_000_000))).toEqual([]);
    expect(watchers(book, address(6_000_019))).toEqual([changed]);
    expect(watchers(book, address(6_000_020))).toEqual([]);
    expect(book.watchedAddresses()).toBe(last + 20);
  }, 300_000);

  it("behavior: adding 100,000 addresses to a watched webhook and removing them again while blocks flow loses no block of the addresses it already watched", async () => {
    const kept = range(7_000_000, 7_001_000);
    const more = range(7_100_000, 7_200_000);
    const id = await create(200, kept);
    const book = await openBook(webhooks);
    const watchedBefore = book.watchedAddresses();
    const record = webhookRecord({ id, team_id: TEAM, type: "transactions" });
    const deps = {
      webhooksFor: book.webhooksFor,
      watchedAddresses: book.watchedAddresses,
      recordOf: (of: string) => (of === id ? record : undefined),
      readBalances: async () => new Map(),
      publicUrl: "http://127.0.0.1",
    };
    const chain = { chain_id: 1, wrapped_native: undefined } as unknown as ChainConfig;
    const blockTo = (number: number, to: string) =>
      syntheticBlock(1, number, address(0xdead_0000 + number), to) as unknown as ChainBlock;
    const matchedOf = async (block: ChainBlock) => (await matchBlock(deps, chain, block)).length;

    // Blocks flow the whole time, one per turn of the event loop, each paying a kept address: every
    // one of them must match, also while a list change is being applied.
    let flowing = true;
    let blocks = 0;
    let missed = 0;
    const flow = (async () => {
      while (flowing) {
        blocks++;
        if ((await matchedOf(blockTo(blocks, kept[blocks % kept.length]!))) !== 1) missed++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      await replace(id, [...kept, ...more]);
      await eventually(
        async () => book.watchedAddresses() === watchedBefore + more.length,
        30_000,
        "the additions",
      );
      const afterAdding = blocks;
      expect(await matchedOf(blockTo(1, more[0]!))).toBe(1);

      await replace(id, kept);
      await eventually(async () => book.watchedAddresses() === watchedBefore, 30_000, "the removals");
      expect(await matchedOf(blockTo(2, more[99_999]!))).toBe(0);
      flowing = false;
      await flow;
      expect(missed).toBe(0);
      // Blocks did flow while each change was read and applied (how many depends on the machine's
      // speed: a removal can be applied within a few turns of the event loop).
      expect(afterAdding).toBeGreaterThan(0);
      expect(blocks - afterAdding).toBeGreaterThan(0);
    } finally {
      flowing = false;
      await flow;
    }
  }, 300_000);

  it("behavior: deleting a webhook ends its matches, and an address it shared keeps the other webhook", async () => {
    const gone = await create(300, [address(8_000_000), address(8_000_001)]);
    const stays = await create(301, [address(8_000_001), address(8_000_002)]);
    const book = await openBook(webhooks);
    expect(watchers(book, address(8_000_001))).toEqual([gone, stays].sort());
    await run(store.remove(TEAM, gone));
    await eventually(async () => book.webhooksFor(address(8_000_000)).length === 0, 30_000, "the deletion");
    expect(watchers(book, address(8_000_001))).toEqual([stays]);
    expect(watchers(book, address(8_000_002))).toEqual([stays]);
  }, 120_000);

  it("behavior: changes made while the book's watch stalled are applied once the check opens a new one, and a restarted book loads the same", async () => {
    const grows = await create(400, range(9_000_000, 9_000_010));
    const shrinks = await create(401, range(9_100_000, 9_100_010));
    const deleted = await create(402, range(9_200_000, 9_200_010));
    const { kv, stall, opened } = withStallableStreamReads(
      await new Kvm(await nats.connectAs("api")).open("webhooks"),
    );
    const book = await openBook(kv, CHECK_MS);
    stall();
    await replace(grows, range(9_000_000, 9_000_500));
    await replace(shrinks, range(9_100_005, 9_100_010));
    await run(store.remove(TEAM, deleted));
    const added = await create(403, [address(9_300_000)]);
    const expected = (b: AddressBook) =>
      b.webhooksFor(address(9_000_499)).length === 1 &&
      b.webhooksFor(address(9_100_000)).length === 0 &&
      b.webhooksFor(address(9_200_000)).length === 0 &&
      b.webhooksFor(address(9_300_000)).length === 1;
    await eventually(async () => expected(book), 30_000, "the changes made during the stall");
    expect(opened()).toBeGreaterThanOrEqual(2);

    const restarted = await openBook(webhooks);
    expect(expected(restarted)).toBe(true);
    for (const b of [book, restarted]) {
      expect(watchers(b, address(9_000_000))).toEqual([grows]);
      expect(watchers(b, address(9_100_005))).toEqual([shrinks]);
      expect(watchers(b, address(9_300_000))).toEqual([added]);
    }
    expect(restarted.watchedAddresses()).toBe(book.watchedAddresses());
  }, 120_000);
});
