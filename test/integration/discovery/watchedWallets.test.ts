import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Exit, Layer, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeChainRegistry } from "../../../src/chains/ChainRegistry.js";
import { Chains } from "../../../src/chains/Chains.js";
import type { ChainsConfigFile } from "../../../src/chains/ChainsConfig.js";
import { Discovery } from "../../../src/discovery/Discovery.js";
import * as WatchedWallets from "../../../src/discovery/watchedWallets.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { noDiscovery } from "../../support/noDiscovery.js";
import { eventually } from "../../support/serviceHarness.js";

/*
 * Wallets a webhook starts watching reach every API worker, against a real nats-server with the
 * service's nats.conf: two workers on connections of the `api` user, each queuing what it is told
 * (its Discovery's `prefetch`), one of them taking the call.
 */

const registry = makeChainRegistry({
  chains: [1, 8453, 10].map((chain_id) => testChainConfig({ chain_id, name: `chain_${chain_id}` })),
} as unknown as ChainsConfigFile);

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

/** A worker: its WatchedWallets over `nc`, with a Discovery that records each chain's queued wallets. */
const startWorker = async (nc: NatsConnection) => {
  const queued = new Map<number, Array<string>>();
  /** Each webhook named in an announcement, and the wallets it withdrew its claim on. */
  const claimed = new Set<string>();
  const withdrawn = new Map<string, Array<string>>();
  /** The chains each webhook's last withdrawal named ("all": none named). */
  const withdrawnOn = new Map<string, ReadonlyArray<number> | "all">();
  const discovery = Layer.effect(
    Discovery,
    Effect.map(Discovery, (quiet) => ({
      ...quiet,
      prefetch: (
        chains: ReadonlyArray<{ chain_id: number }>,
        wallets: ReadonlyArray<string>,
        by?: string,
      ) => {
        if (by !== undefined) claimed.add(by);
        for (const chain of chains)
          queued.set(chain.chain_id, [...(queued.get(chain.chain_id) ?? []), ...wallets]);
        return wallets.length * chains.length;
      },
      unprefetch: (by: string, wallets: ReadonlyArray<string>, chainIds?: ReadonlyArray<number>) => {
        withdrawn.set(by, [...(withdrawn.get(by) ?? []), ...wallets]);
        withdrawnOn.set(by, chainIds ?? "all");
        return wallets.length;
      },
    })),
  ).pipe(Layer.provide(noDiscovery));
  const scope = Effect.runSync(Scope.make());
  const context = await Effect.runPromise(
    Layer.buildWithScope(
      WatchedWallets.layer(nc).pipe(Layer.provide(Layer.merge(discovery, Layer.succeed(Chains, registry)))),
      scope,
    ),
  );
  await nc.flush();
  return {
    queued,
    claimed,
    withdrawn,
    withdrawnOn,
    announce: (
      chainIds: ReadonlyArray<number> | null,
      addresses: ReadonlyArray<string>,
      webhookId?: string,
    ) =>
      Effect.runPromise(
        Effect.flatMap(WatchedWallets.WatchedWallets, (w) => w.announce(chainIds, addresses, webhookId)).pipe(
          Effect.provide(context),
        ),
      ),
    withdraw: (webhookId: string, addresses: ReadonlyArray<string>, chainIds?: ReadonlyArray<number>) =>
      Effect.runPromise(
        Effect.flatMap(WatchedWallets.WatchedWallets, (w) => w.withdraw(webhookId, addresses, chainIds)).pipe(
          Effect.provide(context),
        ),
      ),
    stop: () => Effect.runPromise(Scope.close(scope, Exit.void)),
  };
};

let nats: TestNats;
beforeAll(async () => {
  nats = await startTestNats();
});
afterAll(async () => {
  await nats?.stop();
});

describe("wallets a webhook starts watching", { timeout: 60_000 }, () => {
  it("behavior: every API worker queues them on the webhook's chains, in messages that fit NATS's payload cap", async () => {
    const [a, b] = await Promise.all([
      startWorker(await nats.connectAs("api")),
      startWorker(await nats.connectAs("api")),
    ]);
    try {
      const many = Array.from({ length: 25_001 }, (_, i) => address(i + 1));
      await a.announce([1, 8453], many);
      await a.announce(null, [address(0xabc)]);
      for (const worker of [a, b])
        await eventually(
          async () => (worker.queued.get(10)?.length ?? 0) === 1,
          15_000,
          "the announcements reach the worker",
        );
      for (const worker of [a, b]) {
        expect(worker.queued.get(1)).toEqual([...many, address(0xabc)]);
        expect(worker.queued.get(8453)).toEqual([...many, address(0xabc)]);
        expect(worker.queued.get(10)).toEqual([address(0xabc)]);
      }
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it("behavior: a webhook that stops watching tells every API worker which wallets it no longer wants, in messages that fit NATS's payload cap", async () => {
    const [a, b] = await Promise.all([
      startWorker(await nats.connectAs("api")),
      startWorker(await nats.connectAs("api")),
    ]);
    try {
      const many = Array.from({ length: 12_000 }, (_, i) => address(i + 1));
      await a.announce([1], many, "wh_gone");
      await b.withdraw("wh_gone", many);
      // A webhook that left chain 8453 withdraws its claim there only.
      await a.withdraw("wh_moved", [address(5)], [8453]);
      for (const worker of [a, b])
        await eventually(
          async () =>
            (worker.withdrawn.get("wh_gone")?.length ?? 0) === many.length &&
            worker.withdrawnOn.has("wh_moved"),
          15_000,
          "the withdrawals reach the worker",
        );
      for (const worker of [a, b]) {
        expect([...worker.claimed]).toEqual(["wh_gone"]);
        expect(worker.withdrawn.get("wh_gone")).toEqual(many);
        expect(worker.withdrawnOn.get("wh_gone")).toBe("all");
        expect(worker.withdrawnOn.get("wh_moved")).toEqual([8453]);
        // A withdrawal queues nothing.
        expect(worker.queued.get(1)).toEqual(many);
      }
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it("error: a message that is not an announcement is skipped, and the worker goes on", async () => {
    const worker = await startWorker(await nats.connectAs("api"));
    const other = await nats.connectAs("api");
    try {
      for (const junk of [
        "not json",
        '{"chain_ids":[1],"addresses":["0xnot-an-address"]}',
        '{"addresses":5}',
        '{"webhook_id":"wh_x","unwatched":["0xnot-an-address"]}',
        '{"unwatched":["0x0000000000000000000000000000000000000001"]}',
      ])
        other.publish(WatchedWallets.WATCHED_WALLETS_SUBJECT, junk);
      other.publish(
        WatchedWallets.WATCHED_WALLETS_SUBJECT,
        WatchedWallets.announcements([8453], [address(7)])[0]!,
      );
      await eventually(async () => worker.queued.has(8453), 15_000, "the valid announcement is queued");
      expect([...worker.queued]).toEqual([[8453, [address(7)]]]);
      // The malformed withdrawals were skipped too.
      expect(worker.withdrawn.size).toBe(0);
    } finally {
      await worker.stop();
    }
  });

  it("error: no other role may announce wallets", async () => {
    const worker = await startWorker(await nats.connectAs("api"));
    try {
      const gateway = await nats.connectAs("gateway");
      gateway.publish(
        WatchedWallets.WATCHED_WALLETS_SUBJECT,
        WatchedWallets.announcements(null, [address(9)])[0]!,
      );
      await gateway.flush().catch(() => undefined);
      // A later announcement from an API worker arrives; the gateway's never did.
      const api = await nats.connectAs("api");
      api.publish(
        WatchedWallets.WATCHED_WALLETS_SUBJECT,
        WatchedWallets.announcements([10], [address(10)])[0]!,
      );
      await eventually(async () => worker.queued.has(10), 15_000, "the API worker's announcement");
      expect([...worker.queued]).toEqual([[10, [address(10)]]]);
    } finally {
      await worker.stop();
    }
  });
});
