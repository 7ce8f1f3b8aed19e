import { rawCall, uintWord } from "../../chains/rawCalls.js";
import type { AmmV2Position } from "../../contracts/Positions.js";
import type { IndexedPool } from "../../indexer/IndexRecords.js";
import { EMPTY_PLAN, type PositionPlan, wholeTokens } from "../PositionPlan.js";

/** Calls per LP token, in this order: the wallet's LP balance, the LP supply, the reserves. */
const CALLS_PER_POOL = 3;

/**
 * LP tokens of constant-product pools: the wallet's share of the reserves at the read's block,
 * `holdings_i = lp_balance x reserve_i / totalSupply`, valued at the pricing service's prices
 * of both tokens (never at the pool's own price). Only positions with both tokens priced carry
 * `price_in_usd` and `usd_value`.
 */
export const planAmmV2 = (wallet: string, pools: ReadonlyArray<IndexedPool>): PositionPlan => {
  if (pools.length === 0) return EMPTY_PLAN;
  return {
    calls: pools.flatMap((pool) => [
      rawCall(pool.pool, "balanceOf(address)", wallet),
      rawCall(pool.pool, "totalSupply()"),
      rawCall(pool.pool, "getReserves()"),
    ]),
    priced: pools.flatMap((pool) => [pool.token0, pool.token1]),
    described: pools.flatMap((pool) => [pool.pool, pool.token0, pool.token1]),
    finish: (results, valuation) => {
      const out: Array<AmmV2Position> = [];
      pools.forEach((pool, i) => {
        const at = i * CALLS_PER_POOL;
        const balance = uintWord(results[at], 0);
        const supply = uintWord(results[at + 1], 0);
        const reserve0 = uintWord(results[at + 2], 0);
        const reserve1 = uintWord(results[at + 2], 1);
        if (balance === undefined || balance === 0n || supply === undefined || supply === 0n) return;
        if (reserve0 === undefined || reserve1 === undefined) return;
        const lp = valuation.token(pool.pool);
        const token0 = valuation.token(pool.token0);
        const token1 = valuation.token(pool.token1);
        if (lp.decimals === null || token0.decimals === null || token1.decimals === null) return;
        const holdings0 = wholeTokens((balance * reserve0) / supply, token0.decimals);
        const holdings1 = wholeTokens((balance * reserve1) / supply, token1.decimals);
        const price0 = valuation.price(pool.token0)?.priceUsd;
        const price1 = valuation.price(pool.token1)?.priceUsd;
        const calculated = wholeTokens(balance, lp.decimals);
        const value =
          price0 === undefined || price1 === undefined ? undefined : holdings0 * price0 + holdings1 * price1;
        out.push({
          type: "AmmV2",
          chain_id: valuation.chain.chain_id,
          protocol: pool.protocol,
          pool: pool.pool,
          token0: pool.token0,
          token0_name: token0.name,
          token0_symbol: token0.symbol,
          token0_decimals: token0.decimals,
          token1: pool.token1,
          token1_name: token1.name,
          token1_symbol: token1.symbol,
          token1_decimals: token1.decimals,
          lp_balance: `0x${balance.toString(16)}`,
          ...(price0 === undefined ? {} : { token0_price: price0 }),
          ...(price1 === undefined ? {} : { token1_price: price1 }),
          calculated_balance: calculated,
          ...(value === undefined ? {} : { price_in_usd: value / calculated, usd_value: value }),
          token0_holdings: holdings0,
          token1_holdings: holdings1,
          share_of_pool: Number(balance) / Number(supply),
          logo: valuation.logo(pool.pool),
        });
      });
      return out;
    },
  };
};
