import { Schema } from "effect";
import { type Address, createPublicClient, http, type PublicClient, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DefiPositionsResponse } from "../../../src/contracts/Positions.js";
import type { ManifestChain, ManifestLiquidityPosition } from "../../../src/devnet/DevnetManifest.js";
import { type DevnetService, startDevnetService } from "../../support/devnetService.js";
import { referenceAmounts, simulateCollect, simulateDecrease } from "../../support/positionReference.js";

/**
 * Every seeded liquidity position of the devnet (docs/devnet.md) through the HTTP endpoint, each
 * holding and reward equal to an independent computation at the same block: the managers' own
 * decreaseLiquidity and collect simulated from the owner (V3, Algebra), Uniswap's LiquidityAmounts
 * at StateView's price (V4), the pair's reserves (V2).
 */

interface Element {
  token_id: string;
  tick_lower: number;
  tick_upper: number;
  token0_holdings: number;
  token1_holdings: number;
  token0_rewards: number;
  token1_rewards: number;
  token0_price?: number;
  token1_price?: number;
  in_range: boolean;
  liquidity: string;
}
interface Entry {
  type: string;
  chain_id: number;
  protocol?: string;
  pool?: string;
  pool_id?: number[];
  salt?: number[];
  token0?: string;
  token1?: string;
  token0_decimals?: number;
  token1_decimals?: number;
  token0_price?: number;
  token1_price?: number;
  lp_balance?: string;
  calculated_balance?: number;
  price_in_usd?: number;
  token0_holdings?: number;
  token1_holdings?: number;
  hooks?: string;
  positions?: Element[];
  usd_value?: number;
}
interface Body {
  wallet_address: string;
  positions: Entry[];
  aggregations: { total_usd_value: number; total_by_chain: Record<string, number> };
  warnings?: Array<{ code: string; chain_ids: number[] }>;
}

const CHAINS = [1, 8453, 10];
const erc20 = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function totalSupply() view returns (uint256)",
  "function getReserves() view returns (uint112, uint112, uint32)",
]);
const stateView = parseAbi([
  "function getSlot0(bytes32) view returns (uint160, int24, uint24, uint24)",
  "function getPositionInfo(bytes32, address, int24, int24, bytes32) view returns (uint128, uint256, uint256)",
  "function getFeeGrowthInside(bytes32, int24, int24) view returns (uint256, uint256)",
]);
const managerAbi = parseAbi([
  "function positions(uint256) view returns (uint96, address, address, address, uint24, int24, int24, uint128, uint256, uint256, uint128, uint128)",
]);

let env: DevnetService;
const clients = new Map<number, PublicClient>();
/** Each chain's block when the answers were taken: nothing is mined during this file. */
const blocks = new Map<number, bigint>();
const answers = new Map<string, Body>();

const chainOf = (id: number): ManifestChain => env.devnet.manifest.chains.find((c) => c.chain_id === id)!;
const positionsOf = (id: number, purpose: ManifestLiquidityPosition["purpose"]) =>
  chainOf(id).liquidity_positions.filter((p) => p.purpose === purpose);
const answer = (chainId: number, owner: string) => answers.get(`${chainId}|${owner.toLowerCase()}`)!;
const whole = (raw: bigint, decimals: number) => Number(raw) / 10 ** decimals;
const hex = (n: bigint) => `0x${n.toString(16)}`;

/** The element of an NFT position in its owner's answer on `chainId`, with its entry. */
const nftOf = (chainId: number, position: ManifestLiquidityPosition) => {
  for (const entry of answer(chainId, position.owner).positions) {
    const element = entry.positions?.find((e) => BigInt(e.token_id) === BigInt(position.token_id!));
    if (element !== undefined) return { entry, element };
  }
  return undefined;
};

/** The NFT's position record in its manager (V3 and Algebra layouts agree on words 5 to 11). */
const managed = (client: PublicClient, position: ManifestLiquidityPosition, blockNumber: bigint) =>
  client.readContract({
    address: position.position_manager as Address,
    abi: managerAbi,
    functionName: "positions",
    args: [BigInt(position.token_id!)],
    blockNumber,
  });

/** An entry's holdings and rewards of `element` against raw amounts: exact to the last unit. */
const expectAmounts = (
  entry: Entry,
  element: Element,
  holdings: { amount0: bigint; amount1: bigint },
  rewards: { amount0: bigint; amount1: bigint },
) => {
  expect(element.token0_holdings).toBe(whole(holdings.amount0, entry.token0_decimals!));
  expect(element.token1_holdings).toBe(whole(holdings.amount1, entry.token1_decimals!));
  expect(element.token0_rewards).toBe(whole(rewards.amount0, entry.token0_decimals!));
  expect(element.token1_rewards).toBe(whole(rewards.amount1, entry.token1_decimals!));
};

beforeAll(async () => {
  env = await startDevnetService();
  for (const id of CHAINS) {
    const chain = chainOf(id);
    const client = createPublicClient({ transport: http(chain.rpc_url) }) as PublicClient;
    clients.set(id, client);
    const owners = new Set(chain.liquidity_positions.map((p) => p.owner.toLowerCase()));
    for (const owner of owners) {
      const res = await env.get(`/beta/evm/defi/positions/${owner}?chain_ids=${id}`);
      expect(res.status).toBe(200);
      answers.set(`${id}|${owner}`, (await res.json()) as Body);
    }
    blocks.set(id, await client.getBlockNumber());
  }
});

afterAll(async () => {
  await env?.stop();
});

describe("DeFi positions on the devnet", () => {
  it("default: every answer is a valid DefiPositionsResponse, and aggregations add up", () => {
    for (const body of answers.values()) {
      Schema.decodeUnknownSync(DefiPositionsResponse)(body);
      const total = body.positions.reduce((sum, p) => sum + (p.usd_value ?? 0), 0);
      expect(body.aggregations.total_usd_value).toBeCloseTo(total, 6);
      for (const [chainId, value] of Object.entries(body.aggregations.total_by_chain)) {
        const sum = body.positions
          .filter((p) => String(p.chain_id) === chainId)
          .reduce((s, p) => s + (p.usd_value ?? 0), 0);
        expect(value).toBeCloseTo(sum, 6);
      }
    }
  });

  it("behavior: AmmV2 LP tokens of Uniswap and of the fork, lp_balance and holdings from the pair's own state", async () => {
    for (const id of CHAINS) {
      const client = clients.get(id)!;
      const blockNumber = blocks.get(id)!;
      for (const purpose of ["v2_lp", "fork_v2_lp"] as const) {
        const [lp] = positionsOf(id, purpose);
        expect(lp, `${purpose} on ${id}`).toBeDefined();
        const entry = answer(id, lp!.owner).positions.find(
          (p) => p.type === "AmmV2" && p.pool === lp!.pool.toLowerCase(),
        );
        expect(entry, `${purpose} on ${id}`).toBeDefined();
        expect(entry!.protocol).toBe(lp!.protocol);
        const read = <T>(
          functionName: "balanceOf" | "totalSupply" | "getReserves",
          args: readonly unknown[] = [],
        ) =>
          client.readContract({
            address: lp!.pool as Address,
            abi: erc20,
            functionName,
            args: args as never,
            blockNumber,
          }) as Promise<T>;
        const balance = await read<bigint>("balanceOf", [lp!.owner]);
        const supply = await read<bigint>("totalSupply");
        const [r0, r1] = await read<[bigint, bigint, number]>("getReserves");
        expect(entry!.lp_balance).toBe(hex(balance));
        expect(entry!.calculated_balance).toBe(whole(balance, 18));
        expect(entry!.token0_holdings).toBe(whole((balance * r0) / supply, entry!.token0_decimals!));
        expect(entry!.token1_holdings).toBe(whole((balance * r1) / supply, entry!.token1_decimals!));
        const value =
          entry!.token0_holdings! * entry!.token0_price! + entry!.token1_holdings! * entry!.token1_price!;
        expect(entry!.usd_value).toBeCloseTo(value, 6);
        expect(entry!.price_in_usd! * entry!.calculated_balance!).toBeCloseTo(value, 6);
      }
    }
  });

  it("behavior: V3 NFTs in, below and above range and with tokensOwed hold what decreaseLiquidity would pay and earned what collect would pay", async () => {
    for (const id of CHAINS) {
      const client = clients.get(id)!;
      const blockNumber = blocks.get(id)!;
      for (const purpose of [
        "in_range",
        "below_range",
        "above_range",
        "tokens_owed",
        "transferred",
      ] as const) {
        const [position] = positionsOf(id, purpose);
        expect(position, `${purpose} on ${id}`).toBeDefined();
        const found = nftOf(id, position!);
        expect(found, `${purpose} on ${id}`).toBeDefined();
        const { entry, element } = found!;
        expect(entry).toMatchObject({
          type: "Nft",
          protocol: position!.protocol,
          pool: position!.pool.toLowerCase(),
        });
        expect([element.tick_lower, element.tick_upper]).toEqual([
          position!.tick_lower,
          position!.tick_upper,
        ]);
        const record = await managed(client, position!, blockNumber);
        expect(element.liquidity).toBe(record[7].toString());
        const owner = position!.owner as Address;
        const manager = position!.position_manager as Address;
        const tokenId = BigInt(position!.token_id!);
        expectAmounts(
          entry,
          element,
          await simulateDecrease(client, manager, owner, tokenId, record[7], blockNumber),
          await simulateCollect(client, manager, owner, tokenId, blockNumber),
        );
        expect(element.in_range).toBe(purpose !== "below_range" && purpose !== "above_range");
        if (purpose === "below_range")
          expect([element.token0_holdings > 0, element.token1_holdings]).toEqual([true, 0]);
        if (purpose === "above_range")
          expect([element.token0_holdings, element.token1_holdings > 0]).toEqual([0, true]);
        if (purpose === "in_range" || purpose === "tokens_owed")
          expect(element.token0_rewards > 0 && element.token1_rewards > 0).toBe(true);
        if (purpose === "tokens_owed") expect(record[10] > 0n && record[11] > 0n).toBe(true);
      }
    }
  });

  it("behavior: Algebra positions on base are Nft entries of the Algebra protocol, exact to its manager's decreaseLiquidity and collect", async () => {
    const client = clients.get(8453)!;
    const blockNumber = blocks.get(8453)!;
    const positions = positionsOf(8453, "algebra");
    expect(positions.length).toBeGreaterThan(0);
    for (const position of positions) {
      const found = nftOf(8453, position);
      expect(found, `Algebra NFT ${position.token_id}`).toBeDefined();
      const { entry, element } = found!;
      expect(entry).toMatchObject({
        type: "Nft",
        protocol: position.protocol,
        pool: position.pool.toLowerCase(),
      });
      const record = await managed(client, position, blockNumber);
      const owner = position.owner as Address;
      const manager = position.position_manager as Address;
      const tokenId = BigInt(position.token_id!);
      expectAmounts(
        entry,
        element,
        await simulateDecrease(client, manager, owner, tokenId, record[7], blockNumber),
        await simulateCollect(client, manager, owner, tokenId, blockNumber),
      );
      expect(element.token0_rewards + element.token1_rewards).toBeGreaterThan(0);
    }
    for (const id of [1, 10]) expect(positionsOf(id, "algebra")).toEqual([]);
  });

  it("behavior: V4 NFTs in a native-ETH pool and a hooked pool: amounts by the V4 pool math at StateView's price, fees by StateView's growth", async () => {
    for (const id of CHAINS) {
      const client = clients.get(id)!;
      const blockNumber = blocks.get(id)!;
      const chain = chainOf(id);
      const view = chain.contracts.uniswap_v4_state_view as Address;
      for (const purpose of ["native_eth", "hooked"] as const) {
        const [position] = positionsOf(id, purpose);
        expect(position, `${purpose} on ${id}`).toBeDefined();
        const found = nftOf(id, position!);
        expect(found, `${purpose} on ${id}`).toBeDefined();
        const { entry, element } = found!;
        const salt = `0x${BigInt(position!.token_id!).toString(16).padStart(64, "0")}` as const;
        expect(entry.type).toBe("NftV4");
        expect(hex(BigInt(`0x${Buffer.from(entry.pool_id!).toString("hex")}`))).toBe(
          hex(BigInt(position!.pool)),
        );
        expect(`0x${Buffer.from(entry.salt!).toString("hex")}`).toBe(salt);
        if (purpose === "native_eth") expect(entry.token0).toBe("0x0000000000000000000000000000000000000000");
        if (purpose === "hooked")
          expect(entry.hooks).toBe(chain.contracts.uniswap_v4_swap_counter_hook!.toLowerCase());
        const read = <T>(
          functionName: "getSlot0" | "getPositionInfo" | "getFeeGrowthInside",
          args: readonly unknown[],
        ) =>
          client.readContract({
            address: view,
            abi: stateView,
            functionName,
            args: args as never,
            blockNumber,
          }) as Promise<T>;
        const poolId = position!.pool as `0x${string}`;
        const [sqrtPriceX96, tick] = await read<[bigint, number, number, number]>("getSlot0", [poolId]);
        const [liquidity, last0, last1] = await read<[bigint, bigint, bigint]>("getPositionInfo", [
          poolId,
          position!.position_manager,
          position!.tick_lower,
          position!.tick_upper,
          salt,
        ]);
        const [inside0, inside1] = await read<[bigint, bigint]>("getFeeGrowthInside", [
          poolId,
          position!.tick_lower,
          position!.tick_upper,
        ]);
        const mod = 1n << 256n;
        const earned = (inside: bigint, last: bigint) =>
          (((((inside - last) % mod) + mod) % mod) * liquidity) >> 128n;
        expectAmounts(
          entry,
          element,
          await referenceAmounts(
            client,
            sqrtPriceX96,
            tick,
            position!.tick_lower!,
            position!.tick_upper!,
            liquidity,
          ),
          { amount0: earned(inside0, last0), amount1: earned(inside1, last1) },
        );
        expect(element.token0_rewards > 0 && element.token1_rewards > 0).toBe(true);
      }
    }
  });

  it("behavior: a transferred NFT shows with its receiver only, a burned one nowhere", () => {
    for (const id of CHAINS) {
      const [transferred] = positionsOf(id, "transferred");
      const chain = chainOf(id);
      expect(nftOf(id, transferred!)).toBeDefined();
      const sender = chain.wallets.nft_sender!.toLowerCase();
      const senderAnswer = answer(id, sender);
      const heldBySender = (senderAnswer?.positions ?? [])
        .flatMap((e) => e.positions ?? [])
        .map((e) => BigInt(e.token_id));
      expect(heldBySender).not.toContain(BigInt(transferred!.token_id!));
      for (const burned of positionsOf(id, "burned")) {
        expect(heldBySender).not.toContain(BigInt(burned.token_id!));
        for (const body of answers.values())
          for (const entry of body.positions)
            if (entry.chain_id === id)
              expect((entry.positions ?? []).map((e) => BigInt(e.token_id))).not.toContain(
                BigInt(burned.token_id!),
              );
      }
    }
  });

  it("behavior: values use the pricing service's prices: the same as balances' for the same tokens", async () => {
    for (const id of CHAINS) {
      const [lp] = positionsOf(id, "in_range");
      const { entry, element } = nftOf(id, lp!)!;
      const res = await env.get(`/v1/evm/balances/${chainOf(id).wallets.whale}?chain_ids=${id}`);
      const balances = ((await res.json()) as { balances: Array<{ address: string; price_usd?: number }> })
        .balances;
      for (const [token, price] of [
        [entry.token0, element.token0_price],
        [entry.token1, element.token1_price],
      ] as const)
        expect(price).toBe(balances.find((b) => b.address === token)?.price_usd);
      const value = entry.positions!.reduce(
        (sum, e) =>
          sum +
          (e.token0_holdings + e.token0_rewards) * e.token0_price! +
          (e.token1_holdings + e.token1_rewards) * e.token1_price!,
        0,
      );
      expect(entry.usd_value).toBeCloseTo(value, 6);
    }
  });
});
