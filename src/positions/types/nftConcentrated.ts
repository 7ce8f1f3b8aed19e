import type { RawCall } from "../../chains/multicall3.js";
import type { NftPosition } from "../../contracts/Positions.js";
import type { IndexedPool } from "../../indexer/IndexRecords.js";
import type { HeldNft } from "../discoverPositions.js";
import { isOpen, liquidityNft, type NftReading, pairFields, sumKnown } from "../liquidityNft.js";
import { feeGrowthInside, feesEarned } from "../math/feeGrowth.js";
import { EMPTY_PLAN, type PositionPlan } from "../PositionPlan.js";
import {
  type ConcentratedReads,
  ownedBy,
  ownedByAnother,
  ownerCall,
  type PoolState,
  type TickState,
} from "./concentratedReads.js";

/** Where each read sits in the plan's calls. */
interface Layout {
  readonly calls: ReadonlyArray<RawCall>;
  readonly pools: ReadonlyArray<{ readonly pool: IndexedPool; readonly at: number; readonly count: number }>;
  readonly ticks: ReadonlyMap<string, number>;
  readonly positions: ReadonlyArray<number>;
  readonly owners: ReadonlyArray<number>;
}

const tickKey = (pool: string, tick: number) => `${pool}|${tick}`;

const layout = (nfts: ReadonlyArray<HeldNft>, reads: ConcentratedReads): Layout => {
  const calls: Array<RawCall> = [];
  const pools: Array<{ pool: IndexedPool; at: number; count: number }> = [];
  const seen = new Set<string>();
  for (const { pool } of nfts) {
    if (seen.has(pool.pool)) continue;
    seen.add(pool.pool);
    const poolCalls = reads.pool(pool);
    pools.push({ pool, at: calls.length, count: poolCalls.length });
    calls.push(...poolCalls);
  }
  const ticks = new Map<string, number>();
  for (const nft of nfts) {
    for (const tick of [nft.tickLower, nft.tickUpper]) {
      const key = tickKey(nft.pool.pool, tick);
      if (ticks.has(key)) continue;
      ticks.set(key, calls.length);
      calls.push(reads.tick(nft.pool.pool, tick));
    }
  }
  const positions = nfts.map((nft) => {
    calls.push(reads.position(nft.manager.manager, nft.nft.token_id));
    return calls.length - 1;
  });
  const owners = nfts.map((nft) => {
    calls.push(ownerCall(nft.manager.manager, nft.nft.token_id));
    return calls.length - 1;
  });
  return { calls, pools, ticks, positions, owners };
};

/** An NFT's reading from its manager record, its pool's state and its ticks; undefined if any read failed. */
const reading = (
  nft: HeldNft,
  pool: PoolState,
  lower: TickState,
  upper: TickState,
  managed: NonNullable<ReturnType<ConcentratedReads["decodePosition"]>>,
): NftReading => {
  const around = { tickCurrent: pool.tick, tickLower: nft.tickLower, tickUpper: nft.tickUpper };
  const inside0 = feeGrowthInside({
    ...around,
    global: pool.feeGrowthGlobal0,
    lowerOutside: lower.outside0,
    upperOutside: upper.outside0,
  });
  const inside1 = feeGrowthInside({
    ...around,
    global: pool.feeGrowthGlobal1,
    lowerOutside: lower.outside1,
    upperOutside: upper.outside1,
  });
  return {
    tokenId: nft.nft.token_id,
    tickLower: nft.tickLower,
    tickUpper: nft.tickUpper,
    liquidity: managed.liquidity,
    sqrtPriceX96: pool.sqrtPriceX96,
    tickCurrent: pool.tick,
    fees0: managed.tokensOwed0 + feesEarned(managed.liquidity, inside0, managed.feeGrowthInside0Last),
    fees1: managed.tokensOwed1 + feesEarned(managed.liquidity, inside1, managed.feeGrowthInside1Last),
  };
};

/**
 * NFT positions of V3-design managers (Uniswap V3 and forks, or Algebra through `reads`), one
 * `Nft` entry per pool. Holdings use TickMath and the SDKs' rounding at the pool's price; rewards
 * are the manager's `tokensOwed` plus liquidity times the fee growth inside the range since the
 * position's last checkpoint (the three-case rule), which is what `collect` would pay. An NFT whose
 * owner at the read block is not `wallet` is left out: the index's record that the wallet holds it
 * can be older than the block (discovery's, written before the wallet sold it).
 */
export const planConcentratedNfts = (
  wallet: string,
  nfts: ReadonlyArray<HeldNft>,
  reads: ConcentratedReads,
): PositionPlan => {
  if (nfts.length === 0) return EMPTY_PLAN;
  const plan = layout(nfts, reads);
  return {
    calls: plan.calls,
    priced: nfts.flatMap(({ pool }) => [pool.token0, pool.token1]),
    described: nfts.flatMap(({ pool }) => [pool.token0, pool.token1]),
    disowned: (results) => nfts.filter((_, i) => ownedByAnother(results[plan.owners[i]!], wallet)),
    finish: (results, valuation) => {
      const states = new Map<string, PoolState | undefined>();
      for (const { pool, at, count } of plan.pools) {
        states.set(pool.pool, reads.decodePool(pool, results.slice(at, at + count)));
      }
      const byPool = new Map<string, Array<NftReading>>();
      nfts.forEach((nft, i) => {
        if (!ownedBy(results[plan.owners[i]!], wallet)) return;
        const pool = states.get(nft.pool.pool);
        const lower = reads.decodeTick(results[plan.ticks.get(tickKey(nft.pool.pool, nft.tickLower))!]);
        const upper = reads.decodeTick(results[plan.ticks.get(tickKey(nft.pool.pool, nft.tickUpper))!]);
        const managed = reads.decodePosition(results[plan.positions[i]!]);
        if (pool === undefined || lower === undefined || upper === undefined || managed === undefined) return;
        const read = reading(nft, pool, lower, upper, managed);
        if (!isOpen(read)) return;
        const group = byPool.get(nft.pool.pool);
        if (group === undefined) byPool.set(nft.pool.pool, [read]);
        else group.push(read);
      });
      const out: Array<NftPosition> = [];
      for (const { pool } of plan.pools) {
        const readings = byPool.get(pool.pool);
        const state = states.get(pool.pool);
        if (readings === undefined || state === undefined) continue;
        const token0 = valuation.token(pool.token0);
        const token1 = valuation.token(pool.token1);
        if (token0.decimals === null || token1.decimals === null) continue;
        const elements = readings.map((r) => liquidityNft(r, token0, token1, valuation));
        const usd = sumKnown(elements.map((e) => e.usd));
        out.push({
          type: "Nft",
          chain_id: valuation.chain.chain_id,
          protocol: pool.protocol,
          pool: pool.pool,
          ...pairFields(token0, token1),
          positions: elements.map((e) => e.element),
          fee: state.fee,
          tick_current: state.tick,
          ...(usd === undefined ? {} : { usd_value: usd }),
          logo: valuation.logo(pool.token0),
        });
      }
      return out;
    },
  };
};
