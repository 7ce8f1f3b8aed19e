import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { Level } from "level";
import { createTestClient, type Hex, http, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAdmin } from "../../../src/admin/AdminClient.js";
import { adminChainsStatus, adminIndexWallet } from "../../../src/contracts/Admin.js";
import { activityContext } from "../../../src/devnet/activity/ActivityContext.js";
import { runActivityAction } from "../../../src/devnet/activity/runActivity.js";
import type { ManifestChain } from "../../../src/devnet/DevnetManifest.js";
import { VIEW_PREFIXES } from "../../../src/indexer/indexKeys.js";
import { kvLeaseStore } from "../../../src/ingest/lease/LeaseStore.js";
import { chainLeaseKey } from "../../../src/ingest/lease/leadChain.js";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { levelPath } from "../../../src/storage/dataDirDb.js";
import { fullHistoryChainsFile } from "../../support/chainsFile.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually, type RunningService, startService } from "../../support/serviceHarness.js";

let devnet: TestDevnet;
let chain: ManifestChain;

/** Every entry of the index views (not checkpoints or undo records), as sorted [key, value] pairs. */
const dumpViews = async (dataDir: string) => {
  const db = new Level<string, unknown>(levelPath(dataDir), { valueEncoding: "json" });
  const entries: Array<[string, unknown]> = [];
  for (const prefix of VIEW_PREFIXES)
    for await (const entry of db.iterator({ gte: prefix, lt: `${prefix}~` })) entries.push(entry);
  await db.close();
  return entries;
};

const healthy = async (service: RunningService) =>
  eventually(async () => (await fetch(`${service.baseUrl}/healthz`)).status === 200, 60_000, "healthz 200");

beforeAll(async () => {
  devnet = await startTestDevnet();
  chain = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
});

afterAll(async () => {
  await devnet?.stop();
});

// Three service starts, a reorg and a fresh rebuild: minutes on a machine whose cores are busy.
describe("index views under reorgs and restarts", { timeout: 300_000 }, () => {
  it("behavior: after a reorg and a restart, the index equals a fresh index of the canonical chain", async () => {
    const nats: TestNats = await startTestNats();
    const dataDir = await mkdtemp(join(tmpdir(), "svc-live-"));
    // The whole history, so the index has views of every kind to compare.
    const chainsConfig = await fullHistoryChainsFile(devnet.devnet.chainsConfigPath);
    let service = await startService(nats, { chainsConfig, dataDir });
    await healthy(service);
    const ctx = activityContext(chain);
    const test = createTestClient({ mode: "anvil", transport: http(chain.rpc_url) });

    // Activity that a reorg will take away, including a USDC transfer to a wallet only that branch knows.
    const snapshot = await test.snapshot();
    await runActivityAction(ctx, "erc20_transfer");
    await runActivityAction(ctx, "erc1155_transfer");
    const stranger = "0x00000000000000000000000000000000deadbeef";
    const transfer = parseAbi(["function transfer(address to, uint256 value) returns (bool)"]);
    const hash = await ctx.client.walletClient.writeContract({
      account: ctx.wallets[0]!,
      chain: ctx.client.walletClient.chain,
      address: chain.tokens.USDC!.address as Hex,
      abi: transfer,
      functionName: "transfer",
      args: [stranger, 1n],
    });
    const orphanedTip = Number(
      (await ctx.client.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })).blockNumber,
    );
    const admin = await nats.connectAs("admin");
    const strangerTokens = async () =>
      (await Effect.runPromise(callAdmin(admin, adminIndexWallet, { wallet: stranger }))).tokens;
    await eventually(async () => (await strangerTokens()).length === 1, 30_000, "orphaned transfer indexed");

    // The chain reorganises onto a branch without them, and the service restarts in the middle.
    await test.revert({ id: snapshot });
    await runActivityAction(ctx, "native_transfer");
    await runActivityAction(ctx, "swap_v2");
    // The follower renews its lease every quarter period. Stopping only after a renewal that follows the
    // save of the orphaned tip makes the restart resume from what a renewal leaves in the lease. Ingest
    // reports a block as processed once its save is written, and publishes nothing after it (the new
    // branch is not above it yet), so any later revision of the lease is a renewal.
    await eventually(
      async () => {
        const { chains } = await Effect.runPromise(callAdmin(admin, adminChainsStatus, {}));
        return (chains.find((c) => c.chain_id === chain.chain_id)?.processed ?? 0) >= orphanedTip;
      },
      30_000,
      "the orphaned tip saved",
    );
    const leases = kvLeaseStore(
      await Effect.runPromise(openBucket(await nats.connectAs("ingest"), "chain_leases")),
    );
    const revision = async () =>
      (await Effect.runPromise(leases.read(chainLeaseKey(chain.chain_id))))?.revision ?? 0;
    const saved = await revision();
    await eventually(
      async () => (await revision()) > saved,
      30_000,
      "a lease renewal after the orphaned tip",
    );
    await service.stop();
    await runActivityAction(ctx, "approval");
    await runActivityAction(ctx, "swap_v3");
    service = await startService(nats, { chainsConfig, dataDir });
    await healthy(service);
    // The restarted follower reads the reorg from the chain: the orphaned transfer goes once it has.
    await eventually(
      async () => (await strangerTokens()).length === 0,
      60_000,
      "the orphaned transfer reverted",
    ).catch(async (error: Error) => {
      // What /healthz says of chain 1 (processed and indexed blocks) tells which side missed the reorg.
      const health = await (await fetch(`${service.baseUrl}/healthz`)).text();
      throw new Error(`${error.message}; /healthz answers ${health}`);
    });
    await service.stop();
    const live = await dumpViews(dataDir);

    // A fresh node indexing the same chain from scratch (history, read in bulk) builds the same views.
    const freshNats = await startTestNats();
    const freshDir = await mkdtemp(join(tmpdir(), "svc-fresh-"));
    const fresh = await startService(freshNats, { chainsConfig, dataDir: freshDir });
    await healthy(fresh);
    await fresh.stop();
    const rebuilt = await dumpViews(freshDir);

    expect(live.length).toBeGreaterThan(1000);
    expect(live).toEqual(rebuilt);

    await freshNats.stop();
    await nats.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(freshDir, { recursive: true, force: true });
  });
});
