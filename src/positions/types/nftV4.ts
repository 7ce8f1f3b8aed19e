import { hexToBytes } from "viem";
import type { RawCall } from "../../chains/multicall3.js";
import { intWord, rawCall, uintWord } from "../../chains/rawCalls.js";
import type { NftV4Position } from "../../contracts/Positions.js";
import type { HeldNft } from "../discoverPositions.js";
import { isOpen, liquidityNft, pairFields } from "../liquidityNft.js";
import { feesEarned } from "../math/feeGrowth.js";
import { EMPTY_PLAN, type PositionPlan } from "../PositionPlan.js";
import { ownedBy, ownedByAnother, ownerCall } from "./concentratedReads.js";

/** Calls per NFT, in this order: the pool's slot0, the position, the fee growth inside its range, the NFT's owner. */
const CALLS_PER_NFT = 4;

const salt = (tokenId: bigint) => `0x${tokenId.toString(16).padStart(64, "0")}`;
const bytes32 = (hex: string): ReadonlyArray<number> => [...hexToBytes(hex as `0x${string}`)];

/**
 * Uniswap V4 PositionManager NFTs, read through the pool manager's StateView: the pool's price
 * (`getSlot0`), the position the manager holds for the NFT (`getPositionInfo` with the manager
 * as owner and the token id as salt) and the fee growth inside its range (`getFeeGrowthInside`).
 * V4 keeps no tokens owed: rewards are liquidity times the growth since the last checkpoint.
 * Each NFT is its own `NftV4` entry, because its salt is part of what the entry names. An NFT whose
 * owner at the read block is not `wallet` is left out (the index's record of it may be older).
 */
export const planV4Nfts = (
  wallet: string,
  nfts: ReadonlyArray<HeldNft>,
  stateViews: ReadonlyMap<string, string | undefined>,
): PositionPlan => {
  const readable = nfts.filter((nft) => stateViews.get(nft.manager.factory) !== undefined);
  if (readable.length === 0) return EMPTY_PLAN;
  const calls: Array<RawCall> = readable.flatMap(({ nft, manager, pool, tickLower, tickUpper }) => {
    const stateView = stateViews.get(manager.factory)!;
    return [
      rawCall(stateView, "getSlot0(bytes32)", pool.pool),
      rawCall(
        stateView,
        "getPositionInfo(bytes32,address,int24,int24,bytes32)",
        pool.pool,
        manager.manager,
        tickLower,
        tickUpper,
        salt(nft.token_id),
      ),
      rawCall(stateView, "getFeeGrowthInside(bytes32,int24,int24)", pool.pool, tickLower, tickUpper),
      ownerCall(manager.manager, nft.token_id),
    ];
  });
  return {
    calls,
    priced: readable.flatMap(({ pool }) => [pool.token0, pool.token1]),
    described: readable.flatMap(({ pool }) => [pool.token0, pool.token1]),
    disowned: (results) => readable.filter((_, i) => ownedByAnother(results[i * CALLS_PER_NFT + 3], wallet)),
    finish: (results, valuation) => {
      const out: Array<NftV4Position> = [];
      readable.forEach(({ nft, manager, pool, tickLower, tickUpper }, i) => {
        const at = i * CALLS_PER_NFT;
        if (!ownedBy(results[at + 3], wallet)) return;
        const sqrtPriceX96 = uintWord(results[at], 0);
        const tick = intWord(results[at], 1, 24);
        const lpFee = uintWord(results[at], 3);
        const liquidity = uintWord(results[at + 1], 0);
        const last0 = uintWord(results[at + 1], 1);
        const last1 = uintWord(results[at + 1], 2);
        const inside0 = uintWord(results[at + 2], 0);
        const inside1 = uintWord(results[at + 2], 1);
        if (sqrtPriceX96 === undefined || sqrtPriceX96 === 0n || tick === undefined) return;
        if (liquidity === undefined || last0 === undefined || last1 === undefined) return;
        if (inside0 === undefined || inside1 === undefined) return;
        const reading = {
          tokenId: nft.token_id,
          tickLower,
          tickUpper,
          liquidity,
          sqrtPriceX96,
          tickCurrent: Number(tick),
          fees0: feesEarned(liquidity, inside0, last0),
          fees1: feesEarned(liquidity, inside1, last1),
        };
        if (!isOpen(reading)) return;
        const token0 = valuation.token(pool.token0);
        const token1 = valuation.token(pool.token1);
        if (token0.decimals === null || token1.decimals === null) return;
        const { element, usd } = liquidityNft(reading, token0, token1, valuation);
        out.push({
          type: "NftV4",
          chain_id: valuation.chain.chain_id,
          protocol: manager.protocol,
          pool_id: bytes32(pool.pool),
          pool_manager: manager.factory,
          salt: bytes32(salt(nft.token_id)),
          ...pairFields(token0, token1),
          positions: [element],
          fee: lpFee === undefined ? pool.fee : Number(lpFee),
          tick_current: Number(tick),
          hooks: pool.hooks ?? "0x0000000000000000000000000000000000000000",
          ...(usd === undefined ? {} : { usd_value: usd }),
          logo: valuation.logo(pool.token0),
        });
      });
      return out;
    },
  };
};
