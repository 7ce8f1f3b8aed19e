import { readFileSync } from "node:fs";
import { Effect } from "effect";
import { type Hex, parseAbi, type TransactionReceipt } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAdmin } from "../../../src/admin/AdminClient.js";
import { adminChainsStatus, adminIndexWallet } from "../../../src/contracts/Admin.js";
import { classifyBlock } from "../../../src/decoding/index.js";
import { activityContext } from "../../../src/devnet/activity/ActivityContext.js";
import { ACTIVITY_KINDS, type ActivityKind } from "../../../src/devnet/activity/activityKinds.js";
import { runActivityAction } from "../../../src/devnet/activity/runActivity.js";
import type { ManifestChain } from "../../../src/devnet/DevnetManifest.js";
import { blocksOf, type ChainEvent, collectChainEvents } from "../../support/chainEvents.js";
import { type DevnetService, startDevnetService } from "../../support/devnetService.js";
import { eventually } from "../../support/serviceHarness.js";
import { compileSolidity } from "../../support/solidity.js";

let env: DevnetService;
let chain: ManifestChain;
let events: Array<ChainEvent>;

const admin = async () => env.nats.connectAs("admin");
const indexedBlock = async () => {
  const { chains } = await Effect.runPromise(callAdmin(await admin(), adminChainsStatus, {}));
  return chains.find((c) => c.chain_id === 1)?.processed ?? -1;
};
const waitIndexed = async (block: bigint) => {
  await eventually(async () => (await indexedBlock()) >= Number(block), 30_000, `block ${block} published`);
  // This node's index has applied the block (the health check's own rule allows it one block behind).
  await eventually(
    async () => {
      const health = (await (await env.get("/healthz")).json()) as {
        chains?: Array<{ chain_id: number; indexed_block: number | null }>;
      };
      const indexed = health.chains?.find((c) => c.chain_id === 1)?.indexed_block ?? -1;
      return indexed !== null && indexed >= Number(block);
    },
    30_000,
    "index caught up",
  );
  // The test's own copy of the stream comes through another consumer, which may be a moment behind.
  await eventually(
    async () => blocksOf(events).some((b) => b.chain_id === 1 && b.number >= Number(block)),
    30_000,
    `block ${block} collected`,
  );
};
const touched = async (wallet: string) =>
  (await Effect.runPromise(callAdmin(await admin(), adminIndexWallet, { wallet }))).tokens;

beforeAll(async () => {
  // What the index records is checked for wallets nobody asks about.
  env = await startDevnetService({}, { everyWallet: true });
  chain = env.devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  events = (await collectChainEvents(await env.nats.connectAs("api"))).events;
});

afterAll(async () => {
  await env?.stop();
});

/** The activity types a kind must produce for its transaction's sender. */
const EXPECTED: Record<ActivityKind, ReadonlyArray<string>> = {
  native_transfer: ["send"],
  erc20_transfer: ["send"],
  approval: ["approve"],
  swap_v2: ["swap"],
  swap_v3: ["swap"],
  swap_v4: ["swap"],
  lp_mint_v2: ["mint"],
  lp_mint_v3: ["mint"],
  lp_mint_v4: ["mint"],
  erc721_transfer: ["send"],
  erc1155_transfer: ["send"],
  lp_burn_v2: ["send"],
  lp_burn_v3: ["burn"],
  lp_burn_v4: ["burn"],
};

describe("decoding and indexing of real protocol activity", () => {
  it("behavior: every activity kind of the devnet is decoded into the right activities and indexed", async () => {
    const ctx = activityContext(chain);
    const receipts: Array<[ActivityKind, TransactionReceipt]> = [];
    for (const kind of Object.keys(ACTIVITY_KINDS) as Array<ActivityKind>) {
      for (const receipt of await runActivityAction(ctx, kind)) receipts.push([kind, receipt]);
    }
    await waitIndexed(receipts.at(-1)![1].blockNumber);
    const wrappedNative = chain.tokens.WETH!.address.toLowerCase();
    // A kind may send several transactions (an approval before a burn): check the union of their activities.
    const typesByKind = new Map<ActivityKind, Set<string>>();
    for (const [kind, receipt] of receipts) {
      if (receipt.status !== "success") continue;
      const block = blocksOf(events).find((b) =>
        b.transactions.some((t) => t.hash === receipt.transactionHash),
      );
      expect(block, `${kind}: block of ${receipt.transactionHash}`).toBeDefined();
      const sender = receipt.from.toLowerCase();
      const types = typesByKind.get(kind) ?? new Set<string>();
      for (const activity of classifyBlock(block!, { wrappedNative })) {
        if (activity.tx_hash === receipt.transactionHash && activity.wallet_address === sender)
          types.add(activity.type);
      }
      typesByKind.set(kind, types);
    }
    for (const [kind, expected] of Object.entries(EXPECTED) as Array<[ActivityKind, ReadonlyArray<string>]>) {
      const types = typesByKind.get(kind) ?? new Set();
      for (const type of expected) expect(types.has(type), `${kind}: ${[...types].join(",")}`).toBe(true);
    }
    // The wallets that received tokens of each standard have them indexed.
    const standards = new Set<string>();
    for (const wallet of ctx.wallets) for (const t of await touched(wallet)) standards.add(t.standard);
    expect(standards).toEqual(new Set(["erc20", "erc721", "erc1155"]));
  });

  it("behavior: wrapping and unwrapping native is a mint and a burn, and the unwrap's payout is an internal transfer from traces", async () => {
    const ctx = activityContext(chain);
    const weth = chain.tokens.WETH!.address as Hex;
    const account = ctx.wallets[0]!;
    const wallet = ctx.client.walletClient;
    const abi = parseAbi(["function deposit() payable", "function withdraw(uint256 wad)"]);
    const wrap = await wallet.writeContract({
      account,
      chain: wallet.chain,
      address: weth,
      abi,
      functionName: "deposit",
      value: 10n ** 15n,
    });
    const unwrap = await wallet.writeContract({
      account,
      chain: wallet.chain,
      address: weth,
      abi,
      functionName: "withdraw",
      args: [10n ** 15n],
    });
    const last = await ctx.client.publicClient.waitForTransactionReceipt({
      hash: unwrap,
      pollingInterval: 20,
    });
    await waitIndexed(last.blockNumber);
    const blockOf = (hash: Hex) => blocksOf(events).find((b) => b.transactions.some((t) => t.hash === hash))!;
    const activitiesOf = (hash: Hex) =>
      classifyBlock(blockOf(hash), { wrappedNative: weth.toLowerCase() }).filter(
        (a) => a.tx_hash === hash && a.wallet_address === account.toLowerCase(),
      );
    expect(activitiesOf(wrap).map((a) => a.type)).toEqual(expect.arrayContaining(["send", "mint"]));
    expect(activitiesOf(unwrap).map((a) => a.type)).toEqual(expect.arrayContaining(["burn", "receive"]));
    expect(blockOf(unwrap).internal_transfers).toEqual([
      expect.objectContaining({
        transaction_hash: unwrap,
        from: weth.toLowerCase(),
        to: account.toLowerCase(),
        value: String(10n ** 15n),
      }),
    ]);
  });

  it("error: hostile token contracts (reverting symbol, absurd decimals, 10 KB names, gas burners) do not break indexing", async () => {
    const bytecode = compileSolidity(
      readFileSync(new URL("../../fixtures/HostileTokens.sol", import.meta.url), "utf8"),
    );
    const ctx = activityContext(chain);
    const deployer = chain.wallets.activity_c as Hex;
    const wallet = ctx.client.walletClient;
    const deployed: Record<string, string> = {};
    let last = 0n;
    for (const name of ["RevertingToken", "AbsurdDecimalsToken", "HugeNameToken", "GasBurnerToken"]) {
      const hash = await wallet.deployContract({
        account: deployer,
        chain: wallet.chain,
        abi: [],
        bytecode: bytecode[name]!,
        gas: 3_000_000n,
      });
      const receipt = await ctx.client.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      deployed[name] = receipt.contractAddress!.toLowerCase();
      last = receipt.blockNumber;
    }
    await waitIndexed(last);
    const tokens = new Set((await touched(deployer)).map((t) => t.token));
    for (const address of Object.values(deployed)) expect(tokens.has(address)).toBe(true);

    const res = await env.get(`/v1/evm/balances/${deployer}?chain_ids=1`);
    expect(res.status).toBe(200);
    const entries = ((await res.json()) as { balances: Array<Record<string, unknown>> }).balances;
    const entry = (name: string) => entries.find((e) => e.address === deployed[name]);
    expect(entry("RevertingToken")).toMatchObject({ amount: "1000", name: "Reverting" });
    expect(entry("RevertingToken")).not.toHaveProperty("symbol");
    expect(entry("RevertingToken")).not.toHaveProperty("decimals");
    expect(entry("AbsurdDecimalsToken")).toMatchObject({ symbol: "ABS" });
    expect(entry("AbsurdDecimalsToken")).not.toHaveProperty("decimals");
    expect(String(entry("HugeNameToken")?.name ?? "").length).toBeGreaterThan(0);
    expect(String(entry("HugeNameToken")?.name ?? "").length).toBeLessThanOrEqual(128);
    expect(entry("HugeNameToken")?.symbol).toContain("A");
    expect(entry("GasBurnerToken")).toMatchObject({ name: "Burner", decimals: 18 });
    expect(entry("GasBurnerToken")).not.toHaveProperty("symbol");

    // And indexing goes on afterwards.
    const [receipt] = await runActivityAction(ctx, "erc20_transfer");
    await waitIndexed(receipt!.blockNumber);
  });
});
