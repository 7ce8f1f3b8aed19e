import { MULTICALL3_ADDRESS, type RawCall, type RawResult } from "../../chains/multicall3.js";
import { intWord, rawCall, uintWord } from "../../chains/rawCalls.js";
import type { YieldSplitPosition } from "../../contracts/Positions.js";
import {
  currentInterestIndex,
  impliedApy,
  lpAssetsPerToken,
  ptToAssetRate,
  syToAsset,
  ytAccruedInterest,
} from "../math/yieldSplit.js";
import { EMPTY_PLAN, type PositionPlan, type Valuation, wholeTokens } from "../PositionPlan.js";
import type { HeldYieldToken } from "../yieldSplit/discoverYieldSplit.js";

const TOKEN_TYPE = { pt: "Principal", yt: "Yield", lp: "LP" } as const;
const LP_DECIMALS = 18;

/** Where each of a held token's reads sits in the plan's calls (undefined: not read for this role). */
interface Slots {
  readonly balance: number;
  readonly exchangeRate: number;
  readonly marketState?: number;
  readonly lpSupply?: number;
  readonly userInterest?: number;
  readonly pyIndexStored?: number;
  readonly postExpiry?: number;
  readonly feeRate?: number;
}

/**
 * Principal, yield and LP tokens of the Pendle V2 design (`YieldSplit`), read with plain calls in the
 * chain's one multicall: the wallet's balance, the SY's `exchangeRate()`, the market's `_storage()`
 * (PT and SY reserves, `lastLnImpliedRate`) and LP supply, for a YT its `userInterest(wallet)`,
 * `pyIndexStored()`, `getPostExpiryData()` and the factory's `interestFeeRate()`, and the block's
 * timestamp. Prices (the asset priced by the pricing service, docs/positions.md "YieldSplit"): a PT
 * is worth 1 asset at or after expiry and `exp(−lnImpliedRate × timeLeft / year)` before it; a YT is
 * worth the asset minus the PT, plus its accrued interest (`asset_rewards`, counted in `usd_value`);
 * an LP token is worth its share of the market's PT and SY.
 */
export const planYieldSplit = (wallet: string, held: ReadonlyArray<HeldYieldToken>): PositionPlan => {
  if (held.length === 0) return EMPTY_PLAN;
  const calls: Array<RawCall> = [rawCall(MULTICALL3_ADDRESS, "getCurrentBlockTimestamp()")];
  const add = (call: RawCall): number => calls.push(call) - 1;
  const slots: ReadonlyArray<Slots> = held.map(({ token, record, market }) => ({
    balance: add(rawCall(token, "balanceOf(address)", wallet)),
    exchangeRate: add(rawCall(record.sy, "exchangeRate()")),
    ...(market === undefined ? {} : { marketState: add(rawCall(market, "_storage()")) }),
    ...(record.role === "lp" ? { lpSupply: add(rawCall(token, "totalSupply()")) } : {}),
    ...(record.role === "yt"
      ? {
          userInterest: add(rawCall(token, "userInterest(address)", wallet)),
          pyIndexStored: add(rawCall(token, "pyIndexStored()")),
          // Reverts until the first action after expiry sets it.
          postExpiry: add(rawCall(token, "getPostExpiryData()")),
          feeRate: add(rawCall(record.factory, "interestFeeRate()")),
        }
      : {}),
  }));
  return {
    calls,
    priced: held.map((h) => h.record.asset),
    described: held.flatMap((h) => [h.token, h.record.asset]),
    finish: (results, valuation) => {
      const now = uintWord(results[0], 0);
      if (now === undefined) return [];
      const out: Array<YieldSplitPosition> = [];
      held.forEach((h, i) => {
        const position = shape(h, slots[i]!, results, valuation, Number(now));
        if (position !== undefined) out.push(position);
      });
      return out;
    },
  };
};

const shape = (
  h: HeldYieldToken,
  slot: Slots,
  results: ReadonlyArray<RawResult>,
  valuation: Valuation,
  now: number,
): YieldSplitPosition | undefined => {
  const { record } = h;
  const word = (at: number | undefined, index = 0) =>
    at === undefined ? undefined : uintWord(results[at], index);
  const balance = word(slot.balance);
  const exchangeRate = word(slot.exchangeRate);
  if (balance === undefined || balance === 0n || exchangeRate === undefined) return undefined;
  const token = valuation.token(h.token);
  const asset = valuation.token(record.asset);
  if (asset.decimals === null) return undefined;
  // PT and YT carry the asset's decimals (the factory gives them `assetInfo()`'s); a market 18.
  const tokenDecimals = token.decimals ?? (record.role === "lp" ? LP_DECIMALS : asset.decimals);
  const expired = now >= record.expiry;
  const lnImpliedRate = slot.marketState === undefined ? undefined : uintWord(results[slot.marketState], 2);
  const ptRate = expired
    ? 1
    : lnImpliedRate === undefined
      ? undefined
      : ptToAssetRate(lnImpliedRate, record.expiry - now);
  const assetPrice = valuation.price(record.asset)?.priceUsd;

  /** Assets one whole token stands for, when known. */
  let assetsPerToken: number | undefined;
  let rewards: number | undefined;
  if (record.role === "pt") assetsPerToken = ptRate;
  else if (record.role === "yt") {
    assetsPerToken = ptRate === undefined ? undefined : 1 - ptRate;
    const lastIndex = word(slot.userInterest, 0);
    const accrued = word(slot.userInterest, 1);
    const pyIndexStored = word(slot.pyIndexStored);
    const feeRate = word(slot.feeRate);
    if (
      lastIndex !== undefined &&
      accrued !== undefined &&
      pyIndexStored !== undefined &&
      feeRate !== undefined
    ) {
      const currentIndex = currentInterestIndex({
        exchangeRate,
        pyIndexStored,
        firstPostExpiryIndex: expired ? word(slot.postExpiry, 0) : undefined,
      });
      const interestSy = ytAccruedInterest({ balance, lastIndex, accrued, currentIndex, feeRate });
      rewards = wholeTokens(syToAsset(interestSy, exchangeRate), asset.decimals);
    }
  } else {
    const totalPt = slot.marketState === undefined ? undefined : intWord(results[slot.marketState], 0, 128);
    const totalSy = slot.marketState === undefined ? undefined : intWord(results[slot.marketState], 1, 128);
    const lpSupply = word(slot.lpSupply);
    if (totalPt !== undefined && totalSy !== undefined && lpSupply !== undefined && ptRate !== undefined)
      assetsPerToken =
        lpAssetsPerToken({ totalPt, totalSy, lpSupply, exchangeRate, ptRate }) *
        10 ** (tokenDecimals - asset.decimals);
  }

  const amount = wholeTokens(balance, tokenDecimals);
  const price =
    assetPrice === undefined || assetsPerToken === undefined ? undefined : assetPrice * assetsPerToken;
  const rewardsUsd = rewards === undefined || assetPrice === undefined ? 0 : rewards * assetPrice;
  return {
    type: "YieldSplit",
    chain_id: valuation.chain.chain_id,
    protocol: h.deployment.protocol,
    token: h.token,
    token_type: TOKEN_TYPE[record.role],
    balance: `0x${balance.toString(16)}`,
    token_name: token.name,
    token_symbol: token.symbol,
    token_decimals: tokenDecimals,
    market: h.market ?? null,
    asset: record.asset,
    asset_name: asset.name,
    asset_symbol: asset.symbol,
    asset_decimals: asset.decimals,
    calculated_balance: amount,
    ...(price === undefined ? {} : { price_in_usd: price, usd_value: amount * price + rewardsUsd }),
    expiry: record.expiry,
    expired,
    ...(expired || lnImpliedRate === undefined ? {} : { implied_apy: impliedApy(lnImpliedRate) }),
    ...(rewards === undefined ? {} : { asset_rewards: rewards }),
    logo: valuation.logo(record.asset),
  };
};
