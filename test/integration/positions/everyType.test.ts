import { Schema } from "effect";
import { type Address, type Hex, numberToHex, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DefiPositionsResponse } from "../../../src/contracts/Positions.js";
import type { ManifestChain, ManifestLiquidityPosition } from "../../../src/devnet/DevnetManifest.js";
import { type DevnetService, devnetChains, startDevnetService } from "../../support/devnetService.js";
import { referenceAmounts, simulateCollect, simulateDecrease } from "../../support/positionReference.js";
import { algebraPositionsAbi, abi as liquidityAbi, v4Fees } from "../devnet/positionReads.js";
import { closeTo, type LendingEntry, lendingEntryFor, lendingReader } from "./lendingReference.js";

/**
 * The devnet's `every_type` wallet (docs/devnet.md, "Every position type") through the positions
 * endpoint on three chains at once: every type the devnet deploys on each chain is there, each amount
 * equal to the contracts' own views at the block the service read, and the aggregations add up every
 * type's value.
 */

interface Nft {
  token_id: string;
  token0_holdings: number;
  token1_holdings: number;
  token0_rewards: number;
  token1_rewards: number;
}
interface Entry extends LendingEntry {
  pool?: string;
  pool_id?: number[];
  lp_balance?: string;
  token0_decimals?: number;
  token1_decimals?: number;
  token0_holdings?: number;
  token1_holdings?: number;
  positions?: Nft[];
  shares?: string;
}
interface Body {
  positions: Entry[];
  aggregations: { total_usd_value: number; total_by_chain: Record<string, number> };
}

const CHAINS = [1, 8453, 10];
/** What the devnet deploys per chain: cTokens are the original on ethereum and the fork elsewhere; restaking is on ethereum only. */
const EXPECTED_TYPES: Record<number, readonly string[]> = {
  1: [
    "AmmV2",
    "Nft",
    "NftV4",
    "Tokenized",
    "LendingV2",
    "LendingV3",
    "Erc4626",
    "YieldSplit",
    "RestakeStrategy",
  ],
  8453: ["AmmV2", "Nft", "NftV4", "Tokenized", "LendingV2Fork", "LendingV3", "Erc4626", "YieldSplit"],
  10: ["AmmV2", "Nft", "NftV4", "Tokenized", "LendingV2Fork", "LendingV3", "Erc4626", "YieldSplit"],
};

const viewAbi = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function totalSupply() view returns (uint256)",
  "function getReserves() view returns (uint112, uint112, uint32)",
  "function convertToAssets(uint256) view returns (uint256)",
  "function decimals() view returns (uint8)",
  "function stakerStrategyShares(address, address) view returns (uint256)",
  "function sharesToUnderlyingView(uint256) view returns (uint256)",
]);

let env: DevnetService;
const { chainOf, clientOf } = devnetChains(() => env);
let holder: string;
let body: Body;
const heads = new Map<number, bigint>();

const read = <T>(id: number, address: string, functionName: string, args: unknown[] = []) =>
  clientOf(id).readContract({
    address: address as Address,
    abi: viewAbi,
    functionName,
    args,
    blockNumber: heads.get(id)!,
  } as never) as Promise<T>;
/** Whole tokens as the service computes them (positions.test.ts holds it to the last unit). */
const whole = (raw: bigint, decimals: number) => Number(raw) / 10 ** decimals;
const onChain = (id: number) => body.positions.filter((e) => e.chain_id === id);
const held = (chain: ManifestChain) =>
  chain.liquidity_positions.filter((p) => p.owner.toLowerCase() === holder.toLowerCase());

/** The NFT of a manifest position in the answer, with its entry. */
const nftOf = (id: number, position: ManifestLiquidityPosition) => {
  for (const entry of onChain(id)) {
    const element = entry.positions?.find((e) => BigInt(e.token_id) === BigInt(position.token_id!));
    if (element !== undefined) return { entry, element };
  }
  throw new Error(`NFT ${position.token_id} of ${position.protocol} missing on chain ${id}`);
};

const expectNftAmounts = (
  { entry, element }: { entry: Entry; element: Nft },
  holdings: { amount0: bigint; amount1: bigint },
  rewards: readonly [bigint, bigint],
) => {
  expect(element.token0_holdings).toBe(whole(holdings.amount0, entry.token0_decimals!));
  expect(element.token1_holdings).toBe(whole(holdings.amount1, entry.token1_decimals!));
  expect(element.token0_rewards).toBe(whole(rewards[0], entry.token0_decimals!));
  expect(element.token1_rewards).toBe(whole(rewards[1], entry.token1_decimals!));
};

beforeAll(async () => {
  env = await startDevnetService({ requestTimeoutMs: 60_000 });
  holder = chainOf(1).wallets.every_type!;
  for (const id of CHAINS) heads.set(id, await clientOf(id).getBlockNumber());
  const res = await env.get(`/beta/evm/defi/positions/${holder}?chain_ids=${CHAINS.join(",")}`);
  expect(res.status).toBe(200);
  body = (await res.json()) as Body;
  for (const id of CHAINS)
    expect(await clientOf(id).getBlockNumber(), "nothing mined meanwhile").toBe(heads.get(id));
}, 900_000);

afterAll(async () => {
  await env?.stop();
});

describe("the wallet holding every position type", () => {
  it("default: the answer holds every type the devnet deploys on each of the three chains, and is a valid DefiPositionsResponse", () => {
    Schema.decodeUnknownSync(DefiPositionsResponse)(body);
    for (const id of CHAINS) {
      const types = new Set(onChain(id).map((e) => e.type));
      expect([...types].sort(), `chain ${id}`).toEqual([...EXPECTED_TYPES[id]!].sort());
    }
    // Algebra is deployed on base only, and comes out as an Nft entry of its own protocol.
    const algebra = held(chainOf(8453)).find((p) => p.kind === "algebra")!;
    expect(nftOf(8453, algebra).entry.protocol).toBe(algebra.protocol);
  });

  it("behavior: liquidity amounts equal the pair's reserves share, the managers' decreaseLiquidity and collect, and V4's pool math", async () => {
    for (const id of CHAINS) {
      const client = clientOf(id);
      const block = heads.get(id)!;
      const positions = held(chainOf(id));
      expect(new Set(positions.map((p) => p.kind)).size, `kinds on ${id}`).toBe(id === 8453 ? 4 : 3);
      for (const position of positions) {
        const what = `${position.protocol} on ${id}`;
        if (position.kind === "v2") {
          const entry = onChain(id).find((e) => e.type === "AmmV2" && e.pool === position.pool.toLowerCase());
          expect(entry, what).toBeDefined();
          const balance = await read<bigint>(id, position.pool, "balanceOf", [holder]);
          const supply = await read<bigint>(id, position.pool, "totalSupply");
          const [r0, r1] = await read<[bigint, bigint]>(id, position.pool, "getReserves");
          expect(BigInt(entry!.lp_balance!), what).toBe(balance);
          expect(entry!.token0_holdings, what).toBe(whole((balance * r0) / supply, entry!.token0_decimals!));
          expect(entry!.token1_holdings, what).toBe(whole((balance * r1) / supply, entry!.token1_decimals!));
        } else if (position.kind === "v3" || position.kind === "algebra") {
          const record = await client.readContract({
            address: position.position_manager as Address,
            abi: position.kind === "v3" ? liquidityAbi : algebraPositionsAbi,
            functionName: "positions",
            args: [BigInt(position.token_id!)],
            blockNumber: block,
          });
          const [manager, tokenId] = [position.position_manager as Address, BigInt(position.token_id!)];
          const collect = await simulateCollect(client, manager, holder as Address, tokenId, block);
          expectNftAmounts(
            nftOf(id, position),
            await simulateDecrease(client, manager, holder as Address, tokenId, record[7], block),
            [collect.amount0, collect.amount1],
          );
        } else {
          const view = chainOf(id).contracts.uniswap_v4_state_view as Address;
          const [sqrtPriceX96, tick] = await client.readContract({
            address: view,
            abi: liquidityAbi,
            functionName: "getSlot0",
            args: [position.pool as Hex],
            blockNumber: block,
          });
          const [liquidity] = await client.readContract({
            address: view,
            abi: liquidityAbi,
            functionName: "getPositionInfo",
            args: [
              position.pool as Hex,
              position.position_manager as Address,
              position.tick_lower!,
              position.tick_upper!,
              numberToHex(BigInt(position.token_id!), { size: 32 }),
            ],
            blockNumber: block,
          });
          const found = nftOf(id, position);
          expect(found.entry.type, what).toBe("NftV4");
          expectNftAmounts(
            found,
            await referenceAmounts(
              client,
              sqrtPriceX96,
              tick,
              position.tick_lower!,
              position.tick_upper!,
              liquidity,
            ),
            await v4Fees(client, chainOf(id), position),
          );
        }
      }
    }
  });

  it("behavior: lending amounts equal the protocols' own views (balanceOf, exchangeRateStored, borrowBalanceStored, Comet's balances)", async () => {
    for (const id of CHAINS) {
      const chain = chainOf(id);
      const reader = lendingReader(clientOf(id), chain, heads.get(id)!);
      const positions = chain.lending_positions.filter((p) => p.owner === holder);
      // Supply and debt in every Aave market (two on ethereum), the cToken market and the Comet market.
      expect(positions.length, `lending on ${id}`).toBe(id === 1 ? 8 : 6);
      for (const position of positions) {
        const what = `${position.protocol} ${position.side} on ${id}`;
        const expected = await reader.amount(position);
        expect(expected, what).toBeGreaterThan(0);
        const { entry, amount } = lendingEntryFor(onChain(id), chain, position, reader.tokenOf(position));
        expect(entry, what).toBeDefined();
        expect(closeTo(amount!, expected), `${what}: ${amount} vs ${expected}`).toBe(true);
      }
    }
  });

  it("behavior: vault and restaking amounts equal convertToAssets(balanceOf) and sharesToUnderlyingView(stakerStrategyShares)", async () => {
    for (const id of CHAINS) {
      const chain = chainOf(id);
      const vaults = chain.vaults.filter((v) => v.holders.includes(holder));
      expect(vaults.length, `vaults on ${id}`).toBe(1);
      for (const vault of vaults) {
        const entry = onChain(id).find(
          (e) => e.type === "Erc4626" && e.token === vault.address.toLowerCase(),
        );
        const shares = await read<bigint>(id, vault.address, "balanceOf", [holder]);
        const assets = await read<bigint>(id, vault.address, "convertToAssets", [shares]);
        const decimals = await read<number>(id, vault.asset, "decimals");
        expect(BigInt(entry!.shares!)).toBe(shares);
        expect(closeTo(entry!.calculated_balance!, whole(assets, decimals))).toBe(true);
      }
    }
    const restaking = chainOf(1).restaking!;
    const deposits = restaking.deposits.filter((d) => d.staker === holder);
    expect(deposits).toHaveLength(1);
    for (const { strategy } of deposits) {
      const entry = onChain(1).find(
        (e) => e.type === "RestakeStrategy" && e.token === strategy.toLowerCase(),
      );
      const shares = await read<bigint>(1, restaking.strategy_manager, "stakerStrategyShares", [
        holder,
        strategy,
      ]);
      const raw = await read<bigint>(1, strategy, "sharesToUnderlyingView", [shares]);
      const underlying = restaking.strategies.find((s) => s.address === strategy)!.underlying;
      expect(BigInt(entry!.shares!)).toBe(shares);
      expect(
        closeTo(entry!.calculated_balance!, whole(raw, await read<number>(1, underlying, "decimals"))),
      ).toBe(true);
    }
  });

  it("behavior: PT, YT and LP balances equal balanceOf on every chain", async () => {
    for (const id of CHAINS) {
      const pendle = chainOf(id).pendle!;
      expect(pendle.holders.map((h) => h.toLowerCase())).toContain(holder.toLowerCase());
      const tokens = pendle.expiries.flatMap((e) => [e.pt, e.yt, ...(e.market === null ? [] : [e.market])]);
      for (const token of tokens) {
        const entry = onChain(id).find((e) => e.type === "YieldSplit" && e.token === token.toLowerCase());
        const balance = await read<bigint>(id, token, "balanceOf", [holder]);
        expect(balance, `${token} on ${id}`).toBeGreaterThan(0n);
        expect(
          BigInt((entry as { balance?: string } | undefined)?.balance ?? "0x0"),
          `${token} on ${id}`,
        ).toBe(balance);
      }
    }
  });

  it("behavior: aggregations count every type: each entry has a value, and the totals add them all up, per chain too", () => {
    for (const entry of body.positions)
      expect(Number.isFinite(entry.usd_value), `${entry.type} on ${entry.chain_id}`).toBe(true);
    const sum = (entries: Entry[]) => entries.reduce((s, e) => s + e.usd_value!, 0);
    expect(closeTo(body.aggregations.total_usd_value, sum(body.positions), 9)).toBe(true);
    for (const id of CHAINS) {
      expect(closeTo(body.aggregations.total_by_chain[String(id)]!, sum(onChain(id)), 9), `chain ${id}`).toBe(
        true,
      );
      // Each type moves the chain's total: without it the total would differ.
      for (const type of EXPECTED_TYPES[id]!) {
        const without = sum(onChain(id).filter((e) => e.type !== type));
        expect(without, `${type} on ${id}`).not.toBe(body.aggregations.total_by_chain[String(id)]);
      }
    }
  });
});
