import type { Hex } from "viem";
import type { RawCall } from "../../chains/multicall3.js";
import { rawCall, uintWord } from "../../chains/rawCalls.js";
import type { CollateralQuote, LendingV3Position } from "../../contracts/Positions.js";
import { apyFromMantissa, SECONDS_PER_YEAR } from "../lending/apy.js";
import type { HeldCometMarket } from "../lending/discoverLending.js";
import { cometAccountCall, decodeStanding, healthFactor } from "../lens/lendingLens.js";
import { EMPTY_PLAN, type PositionPlan, wholeTokens } from "../PositionPlan.js";

/**
 * Comet-design markets (`LendingV3`): base supply (`balanceOf`, principal times the supply index),
 * base debt (`borrowBalanceOf`) and collateral per asset the wallet ever supplied
 * (`collateralBalanceOf`), one entry per market. `usd_value` is supply plus collateral minus
 * debt. The health factor and the rates come from the market itself through LendingLens.
 */
export const planCometMarkets = (
  wallet: string,
  held: ReadonlyArray<HeldCometMarket>,
  lensCode: Hex,
): PositionPlan => {
  if (held.length === 0) return EMPTY_PLAN;
  const layout: Array<{ market: HeldCometMarket; at: number }> = [];
  const calls: Array<RawCall> = [];
  for (const market of held) {
    layout.push({ market, at: calls.length });
    calls.push(
      rawCall(market.comet, "balanceOf(address)", wallet),
      rawCall(market.comet, "borrowBalanceOf(address)", wallet),
      cometAccountCall(lensCode, market.comet, wallet),
      ...market.collateral.map((asset) =>
        rawCall(market.comet, "collateralBalanceOf(address,address)", wallet, asset),
      ),
    );
  }
  return {
    calls,
    priced: held.flatMap((m) => [m.base, ...m.collateral]),
    described: held.flatMap((m) => [m.comet, m.base, ...m.collateral]),
    finish: (results, valuation) => {
      const out: Array<LendingV3Position> = [];
      for (const { market, at } of layout) {
        const supplied = uintWord(results[at], 0);
        const borrowed = uintWord(results[at + 1], 0);
        if (supplied === undefined || borrowed === undefined) continue;
        const base = valuation.token(market.base);
        if (base.decimals === null) continue;
        const basePrice = valuation.price(market.base)?.priceUsd;
        const collateral: Array<CollateralQuote> = [];
        let complete = basePrice !== undefined;
        market.collateral.forEach((asset, i) => {
          const amount = uintWord(results[at + 3 + i], 0);
          const info = valuation.token(asset);
          if (amount === undefined || amount === 0n || info.decimals === null) return;
          const balance = wholeTokens(amount, info.decimals);
          const price = valuation.price(asset)?.priceUsd;
          if (price === undefined) complete = false;
          collateral.push({
            token: asset,
            token_symbol: info.symbol,
            calculated_balance: balance,
            ...(price === undefined ? {} : { price_in_usd: price, usd_value: balance * price }),
          });
        });
        if (supplied === 0n && borrowed === 0n && collateral.length === 0) continue;
        const quote = (raw: bigint) => {
          const amount = wholeTokens(raw, base.decimals);
          return {
            calculated_balance: amount,
            ...(basePrice === undefined ? {} : { price_in_usd: basePrice, usd_value: amount * basePrice }),
          };
        };
        const supply = quote(supplied);
        const debt = quote(borrowed);
        const standing = decodeStanding(results[at + 2]);
        const health = healthFactor(standing);
        const value = complete
          ? (supply.usd_value ?? 0) +
            collateral.reduce((sum, c) => sum + (c.usd_value ?? 0), 0) -
            (debt.usd_value ?? 0)
          : undefined;
        out.push({
          type: "LendingV3",
          chain_id: valuation.chain.chain_id,
          protocol: market.deployment.protocol,
          market: market.comet,
          base_token: market.base,
          base_token_name: base.name,
          base_token_symbol: base.symbol,
          ...(supplied > 0n ? { supply_quote: supply } : {}),
          ...(borrowed > 0n ? { debt_quote: debt } : {}),
          collateral,
          ...(value === undefined ? {} : { usd_value: value }),
          ...(health === undefined ? {} : { health_factor: health }),
          ...(standing?.supplyRate === undefined
            ? {}
            : { supply_apy: apyFromMantissa(standing.supplyRate, SECONDS_PER_YEAR) }),
          ...(standing?.borrowRate === undefined
            ? {}
            : { borrow_apy: apyFromMantissa(standing.borrowRate, SECONDS_PER_YEAR) }),
          logo: valuation.logo(market.base),
        });
      }
      return out;
    },
  };
};
