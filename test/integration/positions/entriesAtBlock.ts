import { type Address, bytesToHex, type PublicClient, parseAbi } from "viem";
import { expect } from "vitest";
import type { ManifestChain } from "../../../src/devnet/DevnetManifest.js";
import { referenceAmounts, simulateCollect, simulateDecrease } from "../../support/positionReference.js";
import { closeTo } from "./lendingReference.js";

/**
 * Every entry of a positions answer against the contracts' own views at the block the answer says
 * it is as of, whatever wallet it is for: what an entry names (pool, token, token id, market) is
 * read straight from the chain at that block (ABIs written out here, not taken from the service)
 * and its amounts compared, exactly where both sides compute from the same integers, to 12
 * significant digits where the service divides by a power of ten.
 */

const abi = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function totalSupply() view returns (uint256)",
  "function decimals() view returns (uint8)",
  "function getReserves() view returns (uint112, uint112, uint32)",
  "function ownerOf(uint256) view returns (address)",
  "function positions(uint256) view returns (uint96, address, address, address, uint24, int24, int24, uint128, uint256, uint256, uint128, uint128)",
  "function getSlot0(bytes32) view returns (uint160, int24, uint24, uint24)",
  "function getPositionInfo(bytes32, address, int24, int24, bytes32) view returns (uint128, uint256, uint256)",
  "function getFeeGrowthInside(bytes32, int24, int24) view returns (uint256, uint256)",
  "function underlying() view returns (address)",
  "function exchangeRateStored() view returns (uint256)",
  "function borrowBalanceStored(address) view returns (uint256)",
  "function borrowBalanceOf(address) view returns (uint256)",
  "function collateralBalanceOf(address, address) view returns (uint128)",
  "function convertToAssets(uint256) view returns (uint256)",
  "function stakerStrategyShares(address, address) view returns (uint256)",
  "function sharesToUnderlyingView(uint256) view returns (uint256)",
]);

/** The position manager of each protocol the devnet deploys NFTs of, by its name in the manifest's contracts. */
const MANAGER_OF: Record<string, string> = {
  UniswapV3: "uniswap_v3_position_manager",
  SushiSwapV3: "sushiswap_v3_position_manager",
  AlgebraIntegral: "algebra_position_manager",
  UniswapV4: "uniswap_v4_position_manager",
};

const Q128 = 1n << 128n;
const U256 = 1n << 256n;

interface Quote {
  calculated_balance: number;
}
interface Element {
  token_id: string;
  tick_lower: number;
  tick_upper: number;
  liquidity: string;
  token0_holdings: number;
  token1_holdings: number;
  token0_rewards: number;
  token1_rewards: number;
}

/** A positions entry, as far as these checks read it. */
export interface AnyPositionEntry {
  type: string;
  chain_id: number;
  protocol?: string;
  pool?: string;
  pool_id?: number[];
  salt?: number[];
  token?: string;
  token_type?: string;
  token0_decimals?: number;
  token1_decimals?: number;
  token0_holdings?: number;
  token1_holdings?: number;
  lp_balance?: string;
  underlying_token?: string;
  underlying_token_decimals?: number;
  market?: string;
  base_token?: string;
  shares?: string;
  balance?: string;
  strategy_manager?: string;
  calculated_balance?: number;
  supply_quote?: Quote;
  debt_quote?: Quote;
  collateral?: Array<Quote & { token: string }>;
  positions?: Element[];
}

/** Where an answer is checked: the chain's client, its manifest, the wallet and the block the answer is as of. */
export interface AtBlock {
  readonly client: PublicClient;
  readonly chain: ManifestChain;
  readonly holder: string;
  readonly block: bigint;
}

const whole = (raw: bigint, decimals: number) => Number(raw) / 10 ** decimals;
const hexOf = (bytes: number[]) => bytesToHex(Uint8Array.from(bytes));

/** Reads of one chain at the block. */
const readerAt = ({ client, block }: AtBlock) => {
  const read = <T>(address: string, functionName: string, args: unknown[] = []) =>
    client.readContract({
      address: address as Address,
      abi,
      functionName,
      args,
      blockNumber: block,
    } as never) as Promise<T>;
  const decimals = (token: string) => read<number>(token, "decimals");
  return { read, decimals, wholeOf: async (raw: bigint, token: string) => whole(raw, await decimals(token)) };
};

const expectNfts = async (at: AtBlock, entry: AnyPositionEntry, what: string) => {
  const { read } = readerAt(at);
  const manager = at.chain.contracts[MANAGER_OF[entry.protocol!]!]!;
  for (const element of entry.positions!) {
    const tokenId = BigInt(element.token_id);
    const where = `${what} #${tokenId}`;
    expect((await read<string>(manager, "ownerOf", [tokenId])).toLowerCase(), where).toBe(
      at.holder.toLowerCase(),
    );
    let holdings: { amount0: bigint; amount1: bigint };
    let rewards: readonly [bigint, bigint];
    if (entry.type === "Nft") {
      const record = await read<readonly bigint[]>(manager, "positions", [tokenId]);
      expect(element.liquidity, where).toBe(String(record[7]));
      const owner = at.holder as Address;
      holdings = await simulateDecrease(at.client, manager as Address, owner, tokenId, record[7]!, at.block);
      const collect = await simulateCollect(at.client, manager as Address, owner, tokenId, at.block);
      rewards = [collect.amount0, collect.amount1];
    } else {
      const view = at.chain.contracts.uniswap_v4_state_view!;
      const pool = hexOf(entry.pool_id!);
      const range = [element.tick_lower, element.tick_upper] as const;
      const [sqrtPriceX96, tick] = await read<readonly [bigint, number]>(view, "getSlot0", [pool]);
      const [liquidity, last0, last1] = await read<readonly [bigint, bigint, bigint]>(
        view,
        "getPositionInfo",
        [pool, manager, ...range, hexOf(entry.salt!)],
      );
      expect(element.liquidity, where).toBe(String(liquidity));
      holdings = await referenceAmounts(at.client, sqrtPriceX96, tick, ...range, liquidity);
      const [now0, now1] = await read<readonly [bigint, bigint]>(view, "getFeeGrowthInside", [
        pool,
        ...range,
      ]);
      rewards = [
        (liquidity * ((now0 - last0 + U256) % U256)) / Q128,
        (liquidity * ((now1 - last1 + U256) % U256)) / Q128,
      ];
    }
    expect(element.token0_holdings, where).toBe(whole(holdings.amount0, entry.token0_decimals!));
    expect(element.token1_holdings, where).toBe(whole(holdings.amount1, entry.token1_decimals!));
    expect(element.token0_rewards, where).toBe(whole(rewards[0], entry.token0_decimals!));
    expect(element.token1_rewards, where).toBe(whole(rewards[1], entry.token1_decimals!));
  }
};

const expectClose = (actual: number | undefined, expected: number, what: string) =>
  expect(closeTo(actual!, expected), `${what}: ${actual} vs ${expected}`).toBe(true);

/** One entry of `at.holder`'s answer against the chain at `at.block`. */
export const expectEntryAtBlock = async (at: AtBlock, entry: AnyPositionEntry): Promise<void> => {
  const { read, wholeOf } = readerAt(at);
  const holder = at.holder;
  const what = `${entry.type} ${entry.protocol ?? ""} ${entry.token ?? entry.pool ?? entry.market ?? ""} on ${entry.chain_id}`;
  switch (entry.type) {
    case "AmmV2": {
      const pool = entry.pool!;
      const balance = await read<bigint>(pool, "balanceOf", [holder]);
      const supply = await read<bigint>(pool, "totalSupply");
      const [r0, r1] = await read<readonly [bigint, bigint]>(pool, "getReserves");
      expect(BigInt(entry.lp_balance!), what).toBe(balance);
      expect(entry.token0_holdings, what).toBe(whole((balance * r0) / supply, entry.token0_decimals!));
      expect(entry.token1_holdings, what).toBe(whole((balance * r1) / supply, entry.token1_decimals!));
      return;
    }
    case "Nft":
    case "NftV4":
      return expectNfts(at, entry, what);
    case "Tokenized":
      return expectClose(
        entry.calculated_balance,
        await wholeOf(await read<bigint>(entry.token!, "balanceOf", [holder]), entry.underlying_token!),
        what,
      );
    case "LendingV2":
    case "LendingV2Fork": {
      const cToken = entry.token!;
      const asset = await read<string>(cToken, "underlying");
      const raw =
        entry.token_type === "Borrow"
          ? await read<bigint>(cToken, "borrowBalanceStored", [holder])
          : ((await read<bigint>(cToken, "balanceOf", [holder])) *
              (await read<bigint>(cToken, "exchangeRateStored"))) /
            10n ** 18n;
      const quote = entry.token_type === "Borrow" ? entry.debt_quote : entry.supply_quote;
      return expectClose(quote?.calculated_balance, await wholeOf(raw, asset), what);
    }
    case "LendingV3": {
      const comet = entry.market!;
      const base = entry.base_token!;
      const supplied = await wholeOf(await read<bigint>(comet, "balanceOf", [holder]), base);
      const owed = await wholeOf(await read<bigint>(comet, "borrowBalanceOf", [holder]), base);
      if (supplied > 0) expectClose(entry.supply_quote?.calculated_balance, supplied, `${what} supply`);
      else expect(entry.supply_quote, what).toBeUndefined();
      if (owed > 0) expectClose(entry.debt_quote?.calculated_balance, owed, `${what} debt`);
      else expect(entry.debt_quote, what).toBeUndefined();
      for (const collateral of entry.collateral ?? [])
        expectClose(
          collateral.calculated_balance,
          await wholeOf(
            await read<bigint>(comet, "collateralBalanceOf", [holder, collateral.token]),
            collateral.token,
          ),
          `${what} collateral ${collateral.token}`,
        );
      return;
    }
    case "Erc4626": {
      const shares = await read<bigint>(entry.token!, "balanceOf", [holder]);
      expect(BigInt(entry.shares!), what).toBe(shares);
      const assets = await read<bigint>(entry.token!, "convertToAssets", [shares]);
      return expectClose(entry.calculated_balance, whole(assets, entry.underlying_token_decimals!), what);
    }
    case "RestakeStrategy": {
      const shares = await read<bigint>(entry.strategy_manager!, "stakerStrategyShares", [
        holder,
        entry.token!,
      ]);
      expect(BigInt(entry.shares!), what).toBe(shares);
      const raw = await read<bigint>(entry.token!, "sharesToUnderlyingView", [shares]);
      return expectClose(entry.calculated_balance, whole(raw, entry.underlying_token_decimals!), what);
    }
    case "YieldSplit":
      expect(BigInt(entry.balance!), what).toBe(await read<bigint>(entry.token!, "balanceOf", [holder]));
      return;
    default:
      throw new Error(`no direct read for ${entry.type}`);
  }
};

/**
 * What the manifest says `holder` holds on the chain: a key per position, in the form
 * `positionKeys` gives an answer's entries, so the two sets can be compared. Positions the seed
 * burned are left out; lending positions a liquidation emptied are not listed by the manifest.
 */
export const manifestPositionKeys = (chain: ManifestChain, holder: string): ReadonlySet<string> => {
  const mine = (address: string) => address.toLowerCase() === holder.toLowerCase();
  const keys = new Set<string>();
  for (const p of chain.liquidity_positions.filter((p) => mine(p.owner) && p.purpose !== "burned"))
    keys.add(
      p.kind === "v2"
        ? `AmmV2|${p.pool.toLowerCase()}`
        : `nft|${BigInt(p.token_id!)}|${p.position_manager!.toLowerCase()}`,
    );
  for (const p of chain.lending_positions.filter((p) => mine(p.owner))) {
    const market = chain.lending_markets.find((m) => m.address === p.market)!;
    const asset = market.assets.find((a) => a.asset === p.asset)!;
    if (p.kind === "comet") keys.add(`comet|${p.market.toLowerCase()}`);
    else
      keys.add(
        `lend|${(p.side === "debt" && p.kind !== "ctoken" ? asset.debt_token! : asset.supply_token!).toLowerCase()}|${p.side === "debt" ? "debt" : "supply"}`,
      );
  }
  for (const v of chain.vaults.filter((v) => v.holders.some(mine)))
    keys.add(`Erc4626|${v.address.toLowerCase()}`);
  for (const d of chain.restaking?.deposits.filter((d) => mine(d.staker)) ?? [])
    keys.add(`RestakeStrategy|${d.strategy.toLowerCase()}`);
  if (chain.pendle?.holders.some(mine))
    for (const e of chain.pendle.expiries)
      for (const token of [e.pt, e.yt, ...(e.market === null ? [] : [e.market])])
        keys.add(`YieldSplit|${token.toLowerCase()}`);
  return keys;
};

/** The keys of an answer's entries on the chain, in `manifestPositionKeys`' form. */
export const positionKeys = (
  chain: ManifestChain,
  entries: ReadonlyArray<AnyPositionEntry>,
): ReadonlySet<string> => {
  const keys = new Set<string>();
  for (const e of entries) {
    switch (e.type) {
      case "AmmV2":
        keys.add(`AmmV2|${e.pool}`);
        break;
      case "Nft":
      case "NftV4":
        for (const element of e.positions ?? [])
          keys.add(
            `nft|${BigInt(element.token_id)}|${chain.contracts[MANAGER_OF[e.protocol!]!]!.toLowerCase()}`,
          );
        break;
      case "Tokenized":
        keys.add(`lend|${e.token}|${e.token_type!.startsWith("VariableDebt") ? "debt" : "supply"}`);
        break;
      case "LendingV2":
      case "LendingV2Fork":
        keys.add(`lend|${e.token}|${e.token_type === "Borrow" ? "debt" : "supply"}`);
        break;
      case "LendingV3":
        keys.add(`comet|${e.market}`);
        break;
      default:
        keys.add(`${e.type}|${e.token}`);
    }
  }
  return keys;
};
