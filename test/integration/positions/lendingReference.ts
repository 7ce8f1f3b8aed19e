import { type Address, formatUnits, type PublicClient, parseAbi } from "viem";
import type { ManifestChain, ManifestLendingPosition } from "../../../src/devnet/DevnetManifest.js";

/**
 * What the lending positions of a wallet should be, read straight from the markets' public interfaces
 * at a given block (ABIs written out here, not taken from the service or the seed): the amounts the
 * issue names (`balanceOf`, `exchangeRateStored`, `borrowBalanceStored`, `borrowBalanceOf`,
 * `collateralBalanceOf`) and each protocol's own health figures.
 */

const abi = parseAbi([
  "function decimals() view returns (uint8)",
  "function balanceOf(address) view returns (uint256)",
  "function getUserAccountData(address) view returns (uint256, uint256, uint256, uint256, uint256, uint256)",
  "function exchangeRateStored() view returns (uint256)",
  "function borrowBalanceStored(address) view returns (uint256)",
  "function comptroller() view returns (address)",
  "function getAssetsIn(address) view returns (address[])",
  "function markets(address) view returns (bool, uint256, bool)",
  "function oracle() view returns (address)",
  "function getUnderlyingPrice(address) view returns (uint256)",
  "function getAccountLiquidity(address) view returns (uint256, uint256, uint256)",
  "struct AssetInfo { uint8 offset; address asset; address priceFeed; uint64 scale; uint64 borrowCollateralFactor; uint64 liquidateCollateralFactor; uint64 liquidationFactor; uint128 supplyCap; }",
  "function numAssets() view returns (uint8)",
  "function getAssetInfo(uint8) view returns (AssetInfo)",
  "function getPrice(address) view returns (uint256)",
  "function baseTokenPriceFeed() view returns (address)",
  "function baseScale() view returns (uint256)",
  "function borrowBalanceOf(address) view returns (uint256)",
  "function collateralBalanceOf(address, address) view returns (uint128)",
  "function isLiquidatable(address) view returns (bool)",
]);

const E18 = 10n ** 18n;

/** Reads of one chain pinned to one block. */
export const lendingReader = (client: PublicClient, chain: ManifestChain, blockNumber: bigint) => {
  const read = <T>(address: string, functionName: string, args: unknown[] = []) =>
    client.readContract({
      address: address as Address,
      abi,
      functionName,
      args,
      blockNumber,
    } as never) as Promise<T>;
  const decimals = (token: string) => read<number>(token, "decimals");
  const market = (position: ManifestLendingPosition) => {
    const found = chain.lending_markets.find((m) => m.address === position.market);
    if (found === undefined) throw new Error(`no market ${position.market} on ${chain.name}`);
    return found;
  };
  const assetOf = (position: ManifestLendingPosition) => {
    const asset = market(position).assets.find((a) => a.asset === position.asset);
    if (asset === undefined) throw new Error(`no asset ${position.asset} in ${position.market}`);
    return asset;
  };
  const whole = async (raw: bigint, token: string) => Number(formatUnits(raw, await decimals(token)));

  return {
    /** The token the service reports the position under: aToken, debt token or cToken; the Comet for Comet. */
    tokenOf: (position: ManifestLendingPosition): string => {
      if (position.kind === "comet") return position.market;
      const asset = assetOf(position);
      const token =
        position.side === "debt" && position.kind !== "ctoken" ? asset.debt_token : asset.supply_token;
      if (token == null) throw new Error(`no token for ${position.side} of ${position.asset}`);
      return token;
    },

    /** The position's amount in whole units of its asset, from the protocol's own view functions. */
    amount: async (position: ManifestLendingPosition): Promise<number> => {
      const { owner, asset } = position;
      switch (position.kind) {
        case "aave_v2":
        case "aave_v3": {
          const token =
            position.side === "debt" ? assetOf(position).debt_token! : assetOf(position).supply_token!;
          return whole(await read<bigint>(token, "balanceOf", [owner]), asset);
        }
        case "ctoken": {
          const cToken = assetOf(position).supply_token!;
          if (position.side === "debt")
            return whole(await read<bigint>(cToken, "borrowBalanceStored", [owner]), asset);
          const shares = await read<bigint>(cToken, "balanceOf", [owner]);
          const rate = await read<bigint>(cToken, "exchangeRateStored");
          return whole((shares * rate) / E18, asset);
        }
        case "comet": {
          const comet = position.market;
          if (position.side === "collateral")
            return whole(await read<bigint>(comet, "collateralBalanceOf", [owner, asset]), asset);
          const fn = position.side === "debt" ? "borrowBalanceOf" : "balanceOf";
          return whole(await read<bigint>(comet, fn, [owner]), asset);
        }
      }
    },

    /** Aave's own health factor (`getUserAccountData`), null without debt. */
    aaveHealth: async (pool: string, owner: string): Promise<number | null> => {
      const data = await read<readonly bigint[]>(pool, "getUserAccountData", [owner]);
      return data[1] === 0n ? null : Number(data[5]) / 1e18;
    },

    /**
     * A cToken account's health: the markets it entered, each supply weighted by the comptroller's
     * collateral factor, over its borrows, both at the comptroller's oracle. With whether the comptroller
     * itself reports a shortfall, which must agree with health below 1.
     */
    cTokenHealth: async (comptroller: string, owner: string) => {
      const oracle = await read<string>(comptroller, "oracle");
      let collateral = 0;
      let debt = 0;
      for (const cToken of await read<string[]>(comptroller, "getAssetsIn", [owner])) {
        const price = Number(await read<bigint>(oracle, "getUnderlyingPrice", [cToken])) / 1e18;
        const [, factor] = await read<readonly [boolean, bigint, boolean]>(comptroller, "markets", [cToken]);
        const shares = await read<bigint>(cToken, "balanceOf", [owner]);
        const rate = await read<bigint>(cToken, "exchangeRateStored");
        collateral += (Number((shares * rate) / E18) * Number(factor) * price) / 1e18;
        debt += Number(await read<bigint>(cToken, "borrowBalanceStored", [owner])) * price;
      }
      const [, , shortfall] = await read<readonly [bigint, bigint, bigint]>(
        comptroller,
        "getAccountLiquidity",
        [owner],
      );
      return { health: debt === 0 ? null : collateral / debt, shortfall: shortfall > 0n };
    },

    /**
     * A Comet account's health: collateral weighted by the liquidation collateral factor over the base
     * debt, at the market's own price feeds, and whether the market calls the account liquidatable.
     */
    cometHealth: async (comet: string, owner: string) => {
      let collateral = 0;
      const count = await read<number>(comet, "numAssets");
      for (let i = 0; i < count; i++) {
        const info = await read<{
          asset: string;
          priceFeed: string;
          scale: bigint;
          liquidateCollateralFactor: bigint;
        }>(comet, "getAssetInfo", [i]);
        const held = await read<bigint>(comet, "collateralBalanceOf", [owner, info.asset]);
        const price = Number(await read<bigint>(comet, "getPrice", [info.priceFeed]));
        collateral +=
          ((Number(held) / Number(info.scale)) * price * Number(info.liquidateCollateralFactor)) / 1e18;
      }
      const basePrice = Number(
        await read<bigint>(comet, "getPrice", [await read<string>(comet, "baseTokenPriceFeed")]),
      );
      const owed =
        Number(await read<bigint>(comet, "borrowBalanceOf", [owner])) /
        Number(await read<bigint>(comet, "baseScale"));
      const liquidatable = await read<boolean>(comet, "isLiquidatable", [owner]);
      return { health: owed === 0 ? null : collateral / (owed * basePrice), liquidatable };
    },
  };
};

/** `a` equals `b` to `digits` significant digits (both from the same integers, rounded differently). */
export const closeTo = (a: number, b: number, digits = 12): boolean =>
  a === b || Math.abs(a - b) <= Math.abs(b) * 10 ** -digits;

interface Quote {
  calculated_balance: number;
  price_in_usd?: number;
  usd_value?: number;
}

/** A lending entry of a positions answer, as far as these tests read it. */
export interface LendingEntry {
  type: string;
  chain_id: number;
  protocol?: string;
  token_type?: string;
  token?: string;
  market?: string;
  lending_pool?: string;
  underlying_token?: string;
  calculated_balance?: number;
  price_in_usd?: number;
  usd_value?: number;
  supply_quote?: Quote;
  debt_quote?: Quote;
  collateral?: Array<Quote & { token: string }>;
  health_factor?: number | null;
  collateral_enabled?: boolean;
  supply_apy?: number;
  borrow_apy?: number;
}

/**
 * The entry of an answer's `positions` that holds one manifest lending position, and the quote with its
 * amount. `token` is the reader's {@link lendingReader}`.tokenOf(position)`.
 */
export const lendingEntryFor = <E extends LendingEntry>(
  positions: readonly E[],
  chain: ManifestChain,
  position: ManifestLendingPosition,
  token: string,
) => {
  const here = positions.filter((e) => e.chain_id === chain.chain_id);
  switch (position.kind) {
    case "aave_v2":
    case "aave_v3": {
      const entry = here.find((e) => e.type === "Tokenized" && e.token === token);
      return { entry, amount: entry?.calculated_balance };
    }
    case "ctoken": {
      const tokenType = position.side === "debt" ? "Borrow" : "Supply";
      const entry = here.find((e) => e.token === token && e.token_type === tokenType);
      const quote = position.side === "debt" ? entry?.debt_quote : entry?.supply_quote;
      return { entry, amount: quote?.calculated_balance };
    }
    case "comet": {
      const entry = here.find((e) => e.type === "LendingV3" && e.market === position.market);
      const quote =
        position.side === "collateral"
          ? entry?.collateral?.find((c) => c.token === position.asset)
          : position.side === "debt"
            ? entry?.debt_quote
            : entry?.supply_quote;
      return { entry, amount: quote?.calculated_balance };
    }
  }
};
