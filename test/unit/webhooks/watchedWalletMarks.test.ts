import { Effect, Fiber, Logger, TestClock, TestContext } from "effect";
import { MemoryLevel } from "memory-level";
import { describe, expect, it } from "vitest";
import { IndexedWallets } from "../../../src/indexer/IndexedWallets.js";
import type { Db } from "../../../src/storage/Level.js";
import type { PositionWatcher } from "../../../src/webhooks/alerts/positionAlerts.js";
import { runWatchedWalletMarks } from "../../../src/webhooks/alerts/watchedWalletMarks.js";
import type { WebhookRecord } from "../../../src/webhooks/WebhookRecord.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";

const discovered = testChainConfig({ chain_id: 1, name: "ethereum", index_wallets: "discovered" });
const everyWallet = testChainConfig({ chain_id: 2, name: "second", index_wallets: "all" });
const memoryDb = () => new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
const ALICE = `0x${"a1".repeat(20)}`;
const BOB = `0x${"b2".repeat(20)}`;

/** `positions` webhooks of the address book, by chain: the test changes them between passes. */
const book = () => {
  const lists = new Map<number, Array<string>>();
  return {
    lists,
    watchers: (chainId: number): ReadonlyArray<PositionWatcher> => {
      const wallets = lists.get(chainId);
      return wallets === undefined ? [] : [{ record: {} as WebhookRecord, wallets }];
    },
  };
};

/** Runs `body` beside the marking loop, on a test clock, with the log lines it wrote. */
const withMarks = <A>(
  wallets: Pick<IndexedWallets, "add" | "recordedWallets">,
  watchers: (chainId: number) => ReadonlyArray<PositionWatcher>,
  body: () => Effect.Effect<A>,
) => {
  const logged: Array<string> = [];
  const logger = Logger.make(({ message }) => {
    logged.push(String(message));
  });
  return Effect.runPromise(
    Effect.gen(function* () {
      const loop = yield* Effect.fork(
        runWatchedWalletMarks({ chains: [discovered, everyWallet], watchers, wallets, everyMs: 5_000 }),
      );
      const result = yield* body();
      yield* Fiber.interrupt(loop);
      return { result, logged };
    }).pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Effect.provide(TestContext.TestContext),
    ),
  );
};

/** Lets the marking fiber's pending work (a batch write) finish. */
const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)));

describe("the wallets of positions webhooks, recorded from the address book", () => {
  it("behavior: marked at once on chains indexed for discovered wallets (lower-cased), a changed list on the next pass, an unchanged one not read again, chains recording everyone left alone", async () => {
    const real = await IndexedWallets.load(memoryDb(), [discovered, everyWallet]);
    const added: Array<ReadonlyArray<string>> = [];
    const wallets: Pick<IndexedWallets, "add" | "recordedWallets"> = {
      recordedWallets: (chainId) => real.recordedWallets(chainId),
      add: (chain, list) => {
        added.push(list);
        return real.add(chain, list);
      },
    };
    const { lists, watchers } = book();
    lists.set(1, [ALICE.toUpperCase().replace("0X", "0x")]);
    lists.set(2, [BOB]);
    await withMarks(wallets, watchers, () =>
      Effect.gen(function* () {
        yield* settle;
        expect(real.records(discovered, ALICE)).toBe(true);
        expect(real.records(discovered, BOB)).toBe(false);
        expect(real.recordedWallets(1)).toBe(1);
        expect(real.recordedWallets(2)).toBeUndefined();
        expect(added).toEqual([[ALICE]]);
        yield* TestClock.adjust("5 seconds");
        yield* settle;
        expect(added).toHaveLength(1);

        lists.set(1, [ALICE, BOB]);
        yield* TestClock.adjust("4 seconds");
        yield* settle;
        expect(real.records(discovered, BOB)).toBe(false);
        yield* TestClock.adjust("1 second");
        yield* settle;
        expect(real.records(discovered, BOB)).toBe(true);
        expect(real.recordedWallets(1)).toBe(2);
        expect(added).toHaveLength(2);
      }),
    );
  });

  it("error: a mark that cannot be stored is logged and tried again on the next pass", async () => {
    const real = await IndexedWallets.load(memoryDb(), [discovered]);
    let failures = 1;
    const flaky: Pick<IndexedWallets, "add" | "recordedWallets"> = {
      recordedWallets: (chainId) => real.recordedWallets(chainId),
      add: (chain, list) => (failures-- > 0 ? Promise.reject(new Error("disk full")) : real.add(chain, list)),
    };
    const { lists, watchers } = book();
    lists.set(1, [ALICE]);
    const { logged } = await withMarks(flaky, watchers, () =>
      Effect.gen(function* () {
        yield* settle;
        expect(real.records(discovered, ALICE)).toBe(false);
        yield* TestClock.adjust("5 seconds");
        yield* settle;
        expect(real.records(discovered, ALICE)).toBe(true);
      }),
    );
    expect(logged).toEqual([
      expect.stringMatching(/could not record the watched wallets of ethereum \(1\).*disk full/),
    ]);
  });
});
