import { readFile, rm } from "node:fs/promises";
import { Effect } from "effect";
import {
  type Address,
  createPublicClient,
  type Hex,
  http,
  type PublicClient,
  parseAbi,
  toEventSelector,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeChainsConfigFile } from "../../../src/chains/ChainsConfig.js";
import { activityContext } from "../../../src/devnet/activity/ActivityContext.js";
import { ACTIVITY_KINDS, type ActivityKind } from "../../../src/devnet/activity/activityKinds.js";
import { runActivityAction } from "../../../src/devnet/activity/runActivity.js";
import { type RunningDevnet, startDevnet, writeDevnetApiKey } from "../../../src/devnet/Devnet.js";
import type { ManifestChain } from "../../../src/devnet/DevnetManifest.js";
import { seededDataDir } from "../../support/devnetFixture.js";

const abi = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function getReserves() view returns (uint112, uint112, uint32)",
  "function slot0() view returns (uint160, int24, uint16, uint16, uint16, uint8, bool)",
  "function ownerOf(uint256) view returns (address)",
  "function getSlot0(bytes32) view returns (uint160, int24, uint24, uint24)",
  "function created() view returns (uint256)",
  "function name() view returns (bytes32)",
]);

const clientFor = (chain: ManifestChain): PublicClient =>
  createPublicClient({
    chain: {
      id: chain.chain_id,
      name: chain.name,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [chain.rpc_url] } },
      contracts: { multicall3: { address: chain.contracts.multicall3 as Address } },
    },
    transport: http(chain.rpc_url),
  });

const pool = (chain: ManifestChain, protocol: string, purpose: string) => {
  const found = chain.pools.find((p) => p.protocol === protocol && p.purpose === purpose);
  if (found === undefined) throw new Error(`no ${protocol} ${purpose} pool`);
  return found;
};

/** The last block at or before `timestamp` (binary search over block timestamps). */
const blockAt = async (client: PublicClient, timestamp: bigint): Promise<bigint> => {
  let low = 0n;
  let high = await client.getBlockNumber();
  while (low < high) {
    const mid = (low + high + 1n) / 2n;
    if ((await client.getBlock({ blockNumber: mid })).timestamp <= timestamp) low = mid;
    else high = mid - 1n;
  }
  return low;
};

/** What "the same state" means across a restart: head, balances, reserves now and at a past block. */
const snapshot = async (chain: ManifestChain) => {
  const client = clientFor(chain);
  const head = await client.getBlock();
  const past = await blockAt(client, head.timestamp - 24n * 3600n);
  const v2 = pool(chain, "UniswapV2", "weth_usdc_deep").address as Address;
  return {
    head: head.hash,
    number: head.number,
    whaleUsdc: await client.readContract({
      address: chain.tokens.USDC!.address as Address,
      abi,
      functionName: "balanceOf",
      args: [chain.wallets.whale as Address],
    }),
    reservesNow: await client.readContract({ address: v2, abi, functionName: "getReserves" }),
    reservesPast: await client.readContract({
      address: v2,
      abi,
      functionName: "getReserves",
      blockNumber: past,
    }),
    past,
  };
};

/**
 * The devnet as `npm start` runs it, from the shared seed's dumps. Seeding itself (an empty data
 * directory) is what the integration tests' global setup does whenever the seed's sources change
 * (test/support/devnetSeedSetup.ts): every file's devnet, this one's included, is its result.
 */
describe("devnet", () => {
  let dataDir: string;
  let devnet: RunningDevnet;

  beforeAll(async () => {
    dataDir = await seededDataDir();
    devnet = await startDevnet({ dataDir });
  });

  afterAll(async () => {
    await devnet?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const chain = (name: string): ManifestChain => devnet.manifest.chains.find((c) => c.name === name)!;

  it("default: four chains with the documented ids, names and tags", () => {
    expect(devnet.manifest.chains.map((c) => [c.chain_id, c.name, c.tags])).toEqual([
      [1, "ethereum", ["default", "mainnet"]],
      [8453, "base", ["default", "mainnet"]],
      [10, "optimism", ["default", "mainnet"]],
      [57073, "ink", []],
    ]);
  });

  it("behavior: chains.json round-trips through decodeChainsConfigFile", async () => {
    const decoded = await Effect.runPromise(
      decodeChainsConfigFile(JSON.parse(await readFile(devnet.chainsConfigPath, "utf8"))),
    );
    expect(decoded.chains).toHaveLength(4);
    const ethereum = decoded.chains[0]!;
    expect(ethereum.rpc_url).toBe(chain("ethereum").rpc_url);
    expect(ethereum.stablecoins).toHaveLength(3);
    expect(ethereum.protocols.map((f) => f.protocol)).toEqual([
      "UniswapV2",
      "SushiSwapV2",
      "UniswapV3",
      "SushiSwapV3",
      "UniswapV4",
      "AaveV2",
      "AaveV3",
      "CompoundV2",
      "CompoundV3",
      "EigenLayer",
      "PendleV2",
    ]);
    // The restaking stand-ins are on ethereum only.
    expect(decoded.chains[1]!.protocols.some((p) => p.kind === "restake")).toBe(false);
    // Pendle is on ethereum, base and optimism, not on ink.
    expect(decoded.chains.map((c) => c.protocols.some((p) => p.kind === "pendle"))).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it("behavior: the whale holds every kind of asset on every chain, read through Multicall3", async () => {
    for (const c of devnet.manifest.chains) {
      const client = clientFor(c);
      const whale = c.wallets.whale as Address;
      const symbols = ["USDC", "USDT", "DAI", "WETH", "WBTC", "UNI", "MKR", "SPAM", "NONAME"];
      const balances = await client.multicall({
        contracts: symbols.map(
          (s) =>
            ({
              address: c.tokens[s]!.address as Address,
              abi,
              functionName: "balanceOf",
              args: [whale],
            }) as const,
        ),
        allowFailure: false,
      });
      expect(balances.every((b) => b > 0n)).toBe(true);
      expect(balances[0]).toBe(250_000n * 10n ** 6n);
      expect(await client.getBalance({ address: whale })).toBeGreaterThan(0n);
      expect(await client.getBalance({ address: c.wallets.empty as Address })).toBe(0n);
    }
  });

  it("behavior: pools have liquidity and positions belong to their wallets", async () => {
    const c = chain("base");
    const client = clientFor(c);
    const [r0, r1] = await client.readContract({
      address: pool(c, "UniswapV2", "weth_usdc_deep").address as Address,
      abi,
      functionName: "getReserves",
    });
    expect(r0 > 0n && r1 > 0n).toBe(true);
    const [sqrtV3] = await client.readContract({
      address: pool(c, "UniswapV3", "weth_usdc_deep").address as Address,
      abi,
      functionName: "slot0",
    });
    expect(sqrtV3).toBeGreaterThan(0n);
    const [sqrtV4] = await client.readContract({
      address: c.contracts.uniswap_v4_state_view as Address,
      abi,
      functionName: "getSlot0",
      args: [pool(c, "UniswapV4", "weth_usdc_deep").pool_id as Hex],
    });
    expect(sqrtV4).toBeGreaterThan(0n);
    for (const id of c.positions.v3) {
      expect(
        await client.readContract({
          address: c.contracts.uniswap_v3_position_manager as Address,
          abi,
          functionName: "ownerOf",
          args: [BigInt(id)],
        }),
      ).toBe(c.wallets.v3_lp);
    }
    for (const id of c.positions.v4) {
      expect(
        await client.readContract({
          address: c.contracts.uniswap_v4_position_manager as Address,
          abi,
          functionName: "ownerOf",
          args: [BigInt(id)],
        }),
      ).toBe(c.wallets.v4_lp);
    }
    const lp = await client.readContract({
      address: pool(c, "UniswapV2", "weth_usdc_deep").address as Address,
      abi,
      functionName: "balanceOf",
      args: [c.wallets.v2_lp as Address],
    });
    expect(lp).toBeGreaterThan(0n);
    const mkrName = await client.readContract({
      address: c.tokens.MKR!.address as Address,
      abi,
      functionName: "name",
    });
    expect(mkrName.startsWith("0x4d616b6572")).toBe(true);
  });

  it("behavior: the paging wallet received 1,200 distinct tokens with Transfer events", async () => {
    const c = chain("ethereum");
    const client = clientFor(c);
    expect(
      await client.readContract({
        address: c.contracts.paging_token_factory as Address,
        abi,
        functionName: "created",
      }),
    ).toBe(1200n);
    const logs = await client.getLogs({
      event: parseAbi(["event Transfer(address indexed from, address indexed to, uint256 value)"])[0],
      args: { to: c.wallets.paging as Address },
      fromBlock: 0n,
    });
    expect(new Set(logs.map((l) => l.address)).size).toBeGreaterThanOrEqual(1200);
  });

  it("behavior: prices 1, 24, 168 and 720 hours before the head differ (eth_call at past blocks)", async () => {
    const c = chain("optimism");
    const client = clientFor(c);
    const head = await client.getBlock();
    const v3 = pool(c, "UniswapV3", "weth_usdc_deep").address as Address;
    const prices = new Set<bigint>();
    for (const hours of [0n, 1n, 24n, 168n, 720n]) {
      const blockNumber = await blockAt(client, head.timestamp - hours * 3600n);
      const [sqrtPrice] = await client.readContract({ address: v3, abi, functionName: "slot0", blockNumber });
      prices.add(sqrtPrice);
    }
    expect(prices.size).toBe(5);
  });

  it("behavior: a start from the dump serves exactly the seeded state, history included", async () => {
    const before = await Promise.all(devnet.manifest.chains.map(snapshot));
    await writeDevnetApiKey(dataDir, "demo-key");
    await devnet.stop();
    const lines: Array<string> = [];
    devnet = await startDevnet({ dataDir, log: (line) => lines.push(line) });
    // Loaded, not seeded again (5 s or less on an idle machine, against 35 s and up for a seed).
    expect(lines.filter((line) => /seed/.test(line))).toEqual([]);
    expect(devnet.manifest.api_key).toBe("demo-key");
    const after = await Promise.all(devnet.manifest.chains.map(snapshot));
    expect(after).toEqual(before);
  });

  it("behavior: the activity generator emits every event kind it promises", async () => {
    const ctx = activityContext(chain("ink"));
    const topics = new Set<string>();
    for (const kind of Object.keys(ACTIVITY_KINDS) as ActivityKind[]) {
      const receipts = await runActivityAction(ctx, kind);
      expect(receipts.every((r) => r.status === "success")).toBe(true);
      for (const receipt of receipts)
        for (const log of receipt.logs) if (log.topics[0]) topics.add(log.topics[0]);
      if (kind === "native_transfer") expect(receipts[0]!.logs).toHaveLength(0);
    }
    const expected = {
      transfer: "Transfer(address,address,uint256)",
      approval: "Approval(address,address,uint256)",
      v2Swap: "Swap(address,uint256,uint256,uint256,uint256,address)",
      v2Mint: "Mint(address,uint256,uint256)",
      v2Burn: "Burn(address,uint256,uint256,address)",
      v3Swap: "Swap(address,address,int256,int256,uint160,uint128,int24)",
      v3Increase: "IncreaseLiquidity(uint256,uint128,uint256,uint256)",
      v3Decrease: "DecreaseLiquidity(uint256,uint128,uint256,uint256)",
      v4Swap: "Swap(bytes32,address,int128,int128,uint160,uint128,int24,uint24)",
      v4ModifyLiquidity: "ModifyLiquidity(bytes32,address,int24,int24,int256,bytes32)",
      erc1155Single: "TransferSingle(address,address,address,uint256,uint256)",
    };
    for (const [name, signature] of Object.entries(expected))
      expect(topics.has(toEventSelector(signature)), name).toBe(true);
  });
});
