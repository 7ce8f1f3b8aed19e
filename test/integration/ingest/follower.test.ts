import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { createTestClient, createWalletClient, type Hex, http, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilInstance, startAnvil } from "../../../src/devnet/AnvilProcess.js";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { blocksOf, collectChainEvents } from "../../support/chainEvents.js";
import { startFlakyProxy } from "../../support/flakyProxy.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import {
  eventually,
  type RunningService,
  startService,
  writeChainsFile,
} from "../../support/serviceHarness.js";

// anvil's first default account.
const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const recipient = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";

let nats: TestNats;
let anvil: AnvilInstance;
let dir: string;

const clientsFor = (rpcUrl: string) => {
  const chain = { ...foundry, id: 1 };
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) }).extend(publicActions);
  const test = createTestClient({ mode: "anvil", chain, transport: http(rpcUrl) });
  return { wallet, test };
};

const send = async (rpcUrl: string, value: bigint): Promise<Hex> => {
  const { wallet } = clientsFor(rpcUrl);
  const hash = await wallet.sendTransaction({ to: recipient, value });
  await wallet.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  return hash;
};

beforeAll(async () => {
  nats = await startTestNats();
  anvil = await startAnvil({ chainId: 1 });
  dir = await mkdtemp(join(tmpdir(), "svc-ingest-"));
});

afterAll(async () => {
  await anvil?.stop();
  await nats?.stop();
});

/**
 * A chain whose node answers through a flaky proxy, followed by an ingest-only service on its own
 * nats-server, once its first transaction's block is published (with no start_block the follower
 * starts at the head it first reads: the transaction is sent only once it has).
 */
const followThroughProxy = async (dataDir?: string) => {
  const node = await startAnvil({ chainId: 1 });
  const proxy = await startFlakyProxy(node.rpcUrl);
  const localNats = await startTestNats();
  const chains = await writeChainsFile(await mkdtemp(join(tmpdir(), "svc-flaky-")), [
    { chainId: 1, name: "ethereum", rpcUrl: proxy.url },
  ]);
  const startIngest = () =>
    startService(localNats, {
      chainsConfig: chains,
      roles: ["ingest"],
      ...(dataDir === undefined ? {} : { dataDir }),
    });
  const service = await startIngest();
  const api = await localNats.connectAs("api");
  const { events } = await collectChainEvents(api);
  const status = await Effect.runPromise(openBucket(api, "ingest_status"));
  const follower = async () => (await status.get("1"))?.json<{ mode: string; processed: number | null }>();
  await eventually(async () => ((await follower())?.mode ?? "starting") !== "starting", 30_000, "following");
  const first = await send(node.rpcUrl, 1n);
  await eventually(
    async () => blocksOf(events).some((b) => b.transactions.some((t) => t.hash === first)),
    30_000,
    "the first transaction's block published",
  );
  return {
    node,
    proxy,
    events,
    service,
    startIngest,
    processed: async () => (await follower())?.processed ?? null,
    stop: async () => {
      await proxy.stop();
      await node.stop();
      await localNats.stop();
    },
  };
};

describe("chain follower", () => {
  it("behavior: history before the first start, live blocks after, reorgs, and restarts with no gap or double", async () => {
    // Given 5 blocks with transfers before the service ever ran
    const before: Array<Hex> = [];
    for (let i = 0; i < 5; i++) before.push(await send(anvil.rpcUrl, 1_000n + BigInt(i)));
    const chains = await writeChainsFile(dir, [
      {
        chainId: 1,
        name: "ethereum",
        rpcUrl: anvil.rpcUrl,
        extra: { ws_url: anvil.wsUrl, start_block: 0, traces: true, finality_depth: 16 },
      },
    ]);
    const dataDir = await mkdtemp(join(tmpdir(), "svc-data-"));
    let service: RunningService = await startService(nats, {
      chainsConfig: chains,
      roles: ["ingest"],
      dataDir,
    });
    const reader = await nats.connectAs("api");
    const { events } = await collectChainEvents(reader);

    // Then blocks 0..5 arrive as history, contiguous
    await eventually(
      async () => blocksOf(events).some((b) => b.number === 5),
      30_000,
      "history up to block 5",
    );
    const history = blocksOf(events).filter((b) => b.number <= 5);
    expect(history.map((b) => b.number)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(history.every((b) => b.source === "history")).toBe(true);

    // When a transfer is mined now, it arrives as a live block with the transaction
    const live = await send(anvil.rpcUrl, 424242n);
    await eventually(
      async () => blocksOf(events).some((b) => b.transactions.some((t) => t.hash === live)),
      30_000,
      "live tx",
    );
    const liveBlock = blocksOf(events).find((b) => b.transactions.some((t) => t.hash === live))!;
    expect(liveBlock.source).toBe("live");
    expect(liveBlock.transactions[0]).toMatchObject({
      from: account.address.toLowerCase(),
      to: recipient,
      value: "424242",
      success: true,
    });
    expect(liveBlock.internal_transfers).toEqual([]);

    // When the chain reorganises (two blocks replaced by a different branch)
    const { test } = clientsFor(anvil.rpcUrl);
    const snapshot = await test.snapshot();
    const orphan = await send(anvil.rpcUrl, 111n);
    const alsoOrphan = await send(anvil.rpcUrl, 112n);
    // Both blocks must be published before the revert: one the follower never saw is not a reorg to it.
    await eventually(
      async () =>
        [orphan, alsoOrphan].every((hash) =>
          blocksOf(events).some((b) => b.transactions.some((t) => t.hash === hash)),
        ),
      30_000,
      "both blocks to be orphaned",
    );
    const orphanBlock = blocksOf(events).find((b) => b.transactions.some((t) => t.hash === orphan))!;
    await test.revert({ id: snapshot });
    const replacement = await send(anvil.rpcUrl, 222n);
    await send(anvil.rpcUrl, 223n);
    await send(anvil.rpcUrl, 224n);

    // Then a reorg names the removed blocks, followed by the new canonical ones
    await eventually(
      async () => blocksOf(events).some((b) => b.transactions.some((t) => t.hash === replacement)),
      30_000,
      "replacement",
    );
    const reorg = events.find((e) => e.kind === "reorg");
    expect(reorg?.kind === "reorg" && reorg.reorg.removed.map((r) => r.number)).toEqual([
      orphanBlock.number + 1,
      orphanBlock.number,
    ]);
    expect(reorg?.kind === "reorg" && reorg.reorg.common_ancestor.number).toBe(orphanBlock.number - 1);

    // When the service stops, blocks are mined, and it starts again
    await service.stop();
    const whileDown = await send(anvil.rpcUrl, 333n);
    service = await startService(nats, { chainsConfig: chains, roles: ["ingest"], dataDir });
    await eventually(
      async () => blocksOf(events).some((b) => b.transactions.some((t) => t.hash === whileDown)),
      30_000,
      "catch-up",
    );
    await service.stop();

    // Then the canonical chain in the stream is contiguous and has no block twice
    const canonical = new Map<number, string>();
    for (const event of events) {
      if (event.kind === "reorg") for (const removed of event.reorg.removed) canonical.delete(removed.number);
      else {
        expect(canonical.has(event.block.number), `block ${event.block.number} published twice`).toBe(false);
        canonical.set(event.block.number, event.block.hash);
      }
    }
    const numbers = [...canonical.keys()].sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i));
    const head = await clientsFor(anvil.rpcUrl).wallet.getBlockNumber();
    expect(numbers.at(-1)).toBe(Number(head));
    for (const [n, hash] of canonical) {
      expect((await clientsFor(anvil.rpcUrl).wallet.getBlock({ blockNumber: BigInt(n) })).hash).toBe(hash);
    }
  });

  it("behavior: a node that answers 500s or drops connections is survived", async () => {
    const { node, proxy, events, service, stop } = await followThroughProxy();
    proxy.setMode("error500");
    const second = await send(node.rpcUrl, 2n);
    await eventually(async () => proxy.failures() > 3, 30_000, "failures");
    proxy.setMode("drop");
    const before = proxy.failures();
    await eventually(async () => proxy.failures() > before, 30_000, "drops");
    proxy.setMode("pass");
    await eventually(
      async () => blocksOf(events).some((b) => b.transactions.some((t) => t.hash === second)),
      30_000,
      "recovered",
    );
    await service.stop();
    await stop();
  });

  it("behavior: catching up, a block the node fails to return holds back only itself: the blocks before it are published, then the rest once it reads", async () => {
    const chain = await followThroughProxy(await mkdtemp(join(tmpdir(), "svc-prefix-data-")));
    const { node, proxy, events, processed } = chain;
    await chain.service.stop();
    const from = Math.max(...blocksOf(events).map((b) => b.number)) + 1;
    // A backlog of 12 blocks mined while ingestion is down; the node fails every read of the 7th.
    await clientsFor(node.rpcUrl).test.mine({ blocks: 12 });
    const failing = from + 6;
    const failingHex = `0x${failing.toString(16)}`;
    proxy.refuseWhen((body) => {
      const call = JSON.parse(body) as { method?: string; params?: ReadonlyArray<unknown> };
      return call.method === "eth_getBlockByNumber" && call.params?.[0] === failingHex;
    });
    const service = await chain.startIngest();
    await eventually(
      async () => (await processed()) === failing - 1,
      30_000,
      "the blocks before the failing one",
    );
    await eventually(async () => proxy.failures() > 1, 30_000, "the failing block retried");
    expect(blocksOf(events).some((b) => b.number >= failing)).toBe(false);
    proxy.refuseWhen(undefined);
    await eventually(
      async () => {
        const at = await processed();
        if (at !== null && at > from + 11)
          throw new Error(`published ${at}, past the backlog's last block ${from + 11}`);
        return at === from + 11;
      },
      30_000,
      "the rest of the backlog",
    );
    await eventually(async () => blocksOf(events).some((b) => b.number === from + 11), 30_000, "collected");
    const numbers = blocksOf(events)
      .map((b) => b.number)
      .filter((n) => n >= from);
    expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => from + i));
    await service.stop();
    await chain.stop();
  });
});
