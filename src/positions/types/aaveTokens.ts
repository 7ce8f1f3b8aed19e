import type { RawCall } from "../../chains/multicall3.js";
import { rawCall, uintWord } from "../../chains/rawCalls.js";
import type { TokenizedPosition } from "../../contracts/Positions.js";
import { apyFromRay } from "../lending/apy.js";
import type { HeldAaveToken } from "../lending/discoverLending.js";
import { EMPTY_PLAN, type PositionPlan, wholeTokens } from "../PositionPlan.js";

/** `healthFactor` of an account without debt: type(uint256).max. */
const NO_DEBT = (1n << 256n) - 1n;

/** Where getReserveData puts the rates and the reserve id: V2 and V3 order their structs differently. */
const RESERVE_WORDS = {
  aave_v2: { liquidityRate: 3, variableBorrowRate: 4, id: 11 },
  aave_v3: { liquidityRate: 2, variableBorrowRate: 4, id: 7 },
} as const;

const TOKEN_TYPE = {
  aave_v2: { supply: "SupplyTokenV2", debt: "VariableDebtV2" },
  aave_v3: { supply: "SupplyTokenV3", debt: "VariableDebtV3" },
} as const;

/**
 * Aave V2 and V3 supply tokens and variable debt tokens (`Tokenized`). An aToken's and a debt
 * token's `balanceOf` already include interest, in the reserve asset's units. Each pool answers
 * the account's health factor (`getUserAccountData`) and collateral flags
 * (`getUserConfiguration`), and each reserve its rates (`getReserveData`). A debt token's
 * `usd_value` is negative: a position's value is what it adds to the wallet.
 */
export const planAaveTokens = (wallet: string, held: ReadonlyArray<HeldAaveToken>): PositionPlan => {
  if (held.length === 0) return EMPTY_PLAN;
  const pools = [...new Map(held.map((h) => [h.record.market, h])).values()];
  const reserves = [...new Map(held.map((h) => [`${h.record.market}|${h.record.asset}`, h])).values()];
  const calls: Array<RawCall> = [
    ...held.map((h) => rawCall(h.token, "balanceOf(address)", wallet)),
    ...pools.flatMap((p) => [
      rawCall(p.record.market, "getUserAccountData(address)", wallet),
      rawCall(p.record.market, "getUserConfiguration(address)", wallet),
    ]),
    ...reserves.map((r) => rawCall(r.record.market, "getReserveData(address)", r.record.asset)),
  ];
  const poolAt = new Map(pools.map((p, i) => [p.record.market, held.length + 2 * i]));
  const reserveAt = new Map(
    reserves.map((r, i) => [`${r.record.market}|${r.record.asset}`, held.length + 2 * pools.length + i]),
  );
  return {
    calls,
    priced: held.map((h) => h.record.asset),
    described: held.flatMap((h) => [h.token, h.record.asset]),
    finish: (results, valuation) => {
      const out: Array<TokenizedPosition> = [];
      held.forEach((h, i) => {
        const amount = uintWord(results[i], 0);
        if (amount === undefined || amount === 0n) return;
        const kind = h.record.kind === "aave_v2" ? "aave_v2" : "aave_v3";
        const token = valuation.token(h.token);
        const asset = valuation.token(h.record.asset);
        if (asset.decimals === null) return;
        const balance = wholeTokens(amount, asset.decimals);
        const price = valuation.price(h.record.asset)?.priceUsd;
        const sign = h.record.side === "debt" ? -1 : 1;
        const at = poolAt.get(h.record.market)!;
        const health = uintWord(results[at], 5);
        const configuration = uintWord(results[at + 1], 0);
        const reserve = results[reserveAt.get(`${h.record.market}|${h.record.asset}`)!];
        const words = RESERVE_WORDS[kind];
        const id = uintWord(reserve, words.id);
        const rate = uintWord(
          reserve,
          h.record.side === "supply" ? words.liquidityRate : words.variableBorrowRate,
        );
        out.push({
          type: "Tokenized",
          chain_id: valuation.chain.chain_id,
          token_type: TOKEN_TYPE[kind][h.record.side],
          token: h.token,
          token_name: token.name,
          token_symbol: token.symbol,
          calculated_balance: balance,
          ...(price === undefined ? {} : { price_in_usd: price, usd_value: sign * balance * price }),
          underlying_token: h.record.asset,
          lending_pool: h.record.market,
          ...(h.record.side === "supply" && configuration !== undefined && id !== undefined
            ? { collateral_enabled: ((configuration >> (2n * id + 1n)) & 1n) === 1n }
            : {}),
          ...(health === undefined
            ? {}
            : { health_factor: health === NO_DEBT ? null : Number(health) / 1e18 }),
          ...(rate === undefined
            ? {}
            : h.record.side === "supply"
              ? { supply_apy: apyFromRay(rate) }
              : { borrow_apy: apyFromRay(rate) }),
          logo: valuation.logo(h.record.asset),
        });
      });
      return out;
    },
  };
};
