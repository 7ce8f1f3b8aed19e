import type { Hex } from "viem";
import type { RawCall } from "../../chains/multicall3.js";
import { rawCall, uintWord } from "../../chains/rawCalls.js";
import type { LendingV2ForkPosition, LendingV2Position } from "../../contracts/Positions.js";
import { apyFromMantissa } from "../lending/apy.js";
import type { HeldCTokenMarket } from "../lending/discoverLending.js";
import { cTokenAccountCall, decodeStanding, healthFactor } from "../lens/lendingLens.js";
import { EMPTY_PLAN, type PositionPlan, wholeTokens } from "../PositionPlan.js";

/** Calls per cToken, in this order: balanceOf, exchangeRateStored, borrowBalanceStored, the two rates, checkMembership. */
const CALLS_PER_MARKET = 6;

/**
 * cToken markets of the Compound V2 design and its forks (`LendingV2`, and `LendingV2Fork` for a
 * registry entry marked as a fork). Supply is `balanceOf × exchangeRateStored / 1e18` in the
 * underlying's units, debt `borrowBalanceStored`; a market where the wallet does both gives a
 * supply entry and a borrow entry (spec: "borrow positions carry a separate debt quote"). The
 * health factor is the comptroller's own liquidity computation through LendingLens; APYs need the
 * chain's `blocks_per_year` in the registry entry.
 */
export const planCTokenMarkets = (
  wallet: string,
  held: ReadonlyArray<HeldCTokenMarket>,
  lensCode: Hex,
): PositionPlan => {
  if (held.length === 0) return EMPTY_PLAN;
  const comptrollers = [...new Set(held.map((h) => h.deployment.address))];
  const calls: Array<RawCall> = [
    ...held.flatMap((h) => [
      rawCall(h.cToken, "balanceOf(address)", wallet),
      rawCall(h.cToken, "exchangeRateStored()"),
      rawCall(h.cToken, "borrowBalanceStored(address)", wallet),
      rawCall(h.cToken, "supplyRatePerBlock()"),
      rawCall(h.cToken, "borrowRatePerBlock()"),
      rawCall(h.deployment.address, "checkMembership(address,address)", wallet, h.cToken),
    ]),
    ...comptrollers.map((comptroller) => cTokenAccountCall(lensCode, comptroller, wallet)),
  ];
  const standingAt = new Map(comptrollers.map((c, i) => [c, held.length * CALLS_PER_MARKET + i]));
  return {
    calls,
    priced: held.map((h) => h.underlying),
    described: held.flatMap((h) => [h.cToken, h.underlying]),
    finish: (results, valuation) => {
      const out: Array<LendingV2Position | LendingV2ForkPosition> = [];
      held.forEach((h, i) => {
        const at = i * CALLS_PER_MARKET;
        const balance = uintWord(results[at], 0);
        const rate = uintWord(results[at + 1], 0);
        const borrowed = uintWord(results[at + 2], 0);
        if (balance === undefined || rate === undefined || borrowed === undefined) return;
        const supplied = (balance * rate) / 10n ** 18n;
        if (supplied === 0n && borrowed === 0n) return;
        const underlying = valuation.token(h.underlying);
        if (underlying.decimals === null) return;
        const cToken = valuation.token(h.cToken);
        const price = valuation.price(h.underlying)?.priceUsd;
        const blocks = h.deployment.blocks_per_year;
        const supplyRate = uintWord(results[at + 3], 0);
        const borrowRate = uintWord(results[at + 4], 0);
        const member = uintWord(results[at + 5], 0);
        const health = healthFactor(decodeStanding(results[standingAt.get(h.deployment.address)!]));
        const quote = (raw: bigint) => {
          const amount = wholeTokens(raw, underlying.decimals);
          return {
            calculated_balance: amount,
            ...(price === undefined ? {} : { price_in_usd: price, usd_value: amount * price }),
          };
        };
        const base = {
          type: h.deployment.fork === true ? ("LendingV2Fork" as const) : ("LendingV2" as const),
          chain_id: valuation.chain.chain_id,
          protocol: h.deployment.protocol,
          token: h.cToken,
          token_name: cToken.name,
          token_symbol: cToken.symbol,
          ...(health === undefined ? {} : { health_factor: health }),
          logo: valuation.logo(h.underlying),
        };
        if (supplied > 0n) {
          const supply = quote(supplied);
          out.push({
            ...base,
            token_type: "Supply",
            supply_quote: supply,
            ...(supply.usd_value === undefined ? {} : { usd_value: supply.usd_value }),
            ...(member === undefined ? {} : { collateral_enabled: member === 1n }),
            ...(supplyRate === undefined || blocks === undefined
              ? {}
              : { supply_apy: apyFromMantissa(supplyRate, blocks) }),
          });
        }
        if (borrowed > 0n) {
          const debt = quote(borrowed);
          out.push({
            ...base,
            token_type: "Borrow",
            debt_quote: debt,
            ...(debt.usd_value === undefined ? {} : { usd_value: -debt.usd_value }),
            ...(borrowRate === undefined || blocks === undefined
              ? {}
              : { borrow_apy: apyFromMantissa(borrowRate, blocks) }),
          });
        }
      });
      return out;
    },
  };
};
