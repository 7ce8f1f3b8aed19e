import type { Hex } from "viem";
import type { RawCall } from "../../chains/multicall3.js";
import { addressWord, uintWord } from "../../chains/rawCalls.js";
import type { RestakeStrategyPosition } from "../../contracts/Positions.js";
import { restakeOperatorCall, restakeStakeCall } from "../lens/restakeLens.js";
import { EMPTY_PLAN, type PositionPlan, wholeTokens } from "../PositionPlan.js";
import type { HeldStrategy } from "../restaking/discoverRestaking.js";

const ZERO = "0x0000000000000000000000000000000000000000";

/**
 * Restaking strategy shares (`RestakeStrategy`, EigenLayer design). Through RestakeLens: the staker's
 * `stakerStrategyShares` and the strategy's `sharesToUnderlyingView` of them (the amount depends on
 * the shares, so the lens chains the two), and per StrategyManager the operator the staker is
 * delegated to. The underlying token is priced by the pricing service.
 */
export const planRestakeStrategies = (
  wallet: string,
  held: ReadonlyArray<HeldStrategy>,
  lensCode: Hex,
): PositionPlan => {
  if (held.length === 0) return EMPTY_PLAN;
  const managers = [...new Set(held.map((h) => h.manager.address))];
  const calls: Array<RawCall> = [
    ...held.map((h) => restakeStakeCall(lensCode, h.manager.address, h.strategy, wallet)),
    ...managers.map((manager) => restakeOperatorCall(lensCode, manager, wallet)),
  ];
  const operatorAt = new Map(managers.map((manager, i) => [manager, held.length + i]));
  return {
    calls,
    priced: held.map((h) => h.token),
    described: held.map((h) => h.token),
    finish: (results, valuation) => {
      const out: Array<RestakeStrategyPosition> = [];
      held.forEach((h, i) => {
        const shares = uintWord(results[i], 0);
        const underlying = uintWord(results[i], 1);
        if (shares === undefined || underlying === undefined || shares === 0n) return;
        const token = valuation.token(h.token);
        if (token.decimals === null) return;
        const amount = wholeTokens(underlying, token.decimals);
        const price = valuation.price(h.token)?.priceUsd;
        const operator = addressWord(results[operatorAt.get(h.manager.address)!], 0);
        out.push({
          type: "RestakeStrategy",
          chain_id: valuation.chain.chain_id,
          protocol: h.manager.protocol,
          token: h.strategy,
          shares: `0x${shares.toString(16)}`,
          underlying_token: h.token,
          underlying_token_name: token.name,
          underlying_token_symbol: token.symbol,
          underlying_token_decimals: token.decimals,
          calculated_balance: amount,
          ...(price === undefined ? {} : { price_in_usd: price, usd_value: amount * price }),
          strategy_manager: h.manager.address,
          operator: operator === undefined || operator === ZERO ? null : operator,
          logo: valuation.logo(h.token),
        });
      });
      return out;
    },
  };
};
