import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { createTestClient, type Hex, http, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAdmin } from "../../../src/admin/AdminClient.js";
import { adminIndexWallet } from "../../../src/contracts/Admin.js";
import { activityContext } from "../../../src/devnet/activity/ActivityContext.js";
import { runActivityAction } from "../../../src/devnet/activity/runActivity.js";
import type { ManifestChain } from "../../../src/devnet/DevnetManifest.js";
import { everyWalletChainsFile } from "../../support/chainsFile.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually, type RunningService, startService } from "../../support/serviceHarness.js";

let devnet: TestDevnet;
let chain: ManifestChain;
let nats: TestNats;

const health = async (service: RunningService) => {
  const response = await fetch(`${service.baseUrl}/healthz`);
  return {
    status: response.status,
    body: (await response.json()) as { chains: ReadonlyArray<{ chain_id: number; indexed_block?: number }> },
  };
};

beforeAll(async () => {
  devnet = await startTestDevnet();
  chain = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  nats = await startTestNats();
});

afterAll(async () => {
  await nats?.stop();
  await devnet?.stop();
});

// Two service starts on a devnet: minutes on a machine whose cores are busy.
describe("a reorg while the service is down", { timeout: 300_000 }, () => {
  it("behavior: a block replaced at the same height while down is reverted before /healthz says ready", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "svc-restart-reorg-"));
    // The stranger is never asked about: its touches are in the index only when every wallet's are.
    const chainsConfig = await everyWalletChainsFile(devnet.devnet.chainsConfigPath);
    let service = await startService(nats, { chainsConfig, dataDir });
    await eventually(async () => (await health(service)).status === 200, 150_000, "healthz 200");
    const ctx = activityContext(chain);
    const test = createTestClient({ mode: "anvil", transport: http(chain.rpc_url) });
    const admin = await nats.connectAs("admin");
    const stranger = "0x00000000000000000000000000000000cafebabe";
    const strangerTokens = async () =>
      (await Effect.runPromise(callAdmin(admin, adminIndexWallet, { wallet: stranger }))).tokens;

    // A USDC transfer to a wallet only this block knows, indexed at the chain's tip.
    const snapshot = await test.snapshot();
    const hash = await ctx.client.walletClient.writeContract({
      account: ctx.wallets[0]!,
      chain: ctx.client.walletClient.chain,
      address: chain.tokens.USDC!.address as Hex,
      abi: parseAbi(["function transfer(address to, uint256 value) returns (bool)"]),
      functionName: "transfer",
      args: [stranger, 1n],
    });
    const orphan = await ctx.client.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    await eventually(async () => (await strangerTokens()).length === 1, 60_000, "the transfer indexed");
    await eventually(
      async () =>
        (await health(service)).body.chains.find((c) => c.chain_id === 1)?.indexed_block ===
        Number(orphan.blockNumber),
      60_000,
      "the index at the transfer's block",
    );
    await service.stop();

    // While no process follows the chain, another block takes the transfer's place at the same height.
    await test.revert({ id: snapshot });
    await runActivityAction(ctx, "native_transfer");
    expect(await ctx.client.publicClient.getBlockNumber({ cacheTime: 0 })).toBe(orphan.blockNumber);

    // No later block reveals the reorg by its parent hash: the restarted follower must look itself,
    // and only then may /healthz call the index complete.
    service = await startService(nats, { chainsConfig, dataDir });
    let last: unknown;
    await eventually(
      async () => {
        const answer = await health(service);
        last = answer.body;
        return answer.status === 200;
      },
      150_000,
      "healthz 200 after restart",
    ).catch((error: Error) => {
      // What /healthz last said names the chain, role or check that kept it from 200.
      throw new Error(`${error.message}; /healthz last answered ${JSON.stringify(last)}`);
    });
    expect(await strangerTokens()).toEqual([]);

    await admin.close();
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
});
