import type { ChainConfig } from "../../chains/ChainsConfig.js";
import type { Position } from "../../contracts/Positions.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import { entriesHolding } from "./entriesHolding.js";
import type { HeldRange } from "./heldRanges.js";
import { decodeTick, logsTouchPools, tickCall } from "./poolTicks.js";
import type { PositionAlertDeps, PositionWatcher, positionsAround } from "./positionAlerts.js";
import { type RangeRead, rangeCrossings } from "./rangeCrossings.js";

/** One `out_of_range` or `in_range` element of a `positions` delivery: docs/webhooks.md, "Position alerts". */
export interface RangeAlertEvent {
  /** `<chain_id>:<block_hash>:<wallet>:<position_manager>:<token_id>:<condition>`. */
  readonly event_id: string;
  readonly removed: boolean;
  readonly condition: "out_of_range" | "in_range";
  readonly chain_id: number;
  readonly block_number: number;
  readonly block_hash: string;
  readonly subscribed_address: string;
  readonly protocol: string;
  /** The pool's address, or a V4 pool's id. */
  readonly pool: string;
  /** The NFT contract: a NonfungiblePositionManager, or V4's PositionManager. */
  readonly position_manager: string;
  /** Hex, as the positions endpoint shows it. */
  readonly token_id: string;
  readonly tick_lower: number;
  readonly tick_upper: number;
  /** The pool's tick at the block. */
  readonly tick: number;
  /**
   * The wallet's entry holding the NFT as the positions endpoint shows it (the pool's `Nft` entry,
   * or the NFT's own `NftV4` entry), before and after the block.
   */
  readonly positions_before: ReadonlyArray<Position>;
  readonly positions_after: ReadonlyArray<Position>;
}

/**
 * The `out_of_range` and `in_range` alerts of one block: each watched wallet's V3, Algebra and V4
 * position NFTs (heldRanges.ts), and, when the block has a log of one of their pools (a swap moves
 * the tick; V4 pools' logs are their PoolManager's, naming the pool id) or involves the wallet,
 * every such pool's tick in one multicall (poolTicks.ts), compared with each range
 * (rangeCrossings.ts). The range states are written before the alerts are queued, as for health
 * factors. A wallet's positions come from the index: one still being discovered has none yet, and
 * is first seen (silently) once it has.
 */
export const rangeAlerts = async (
  deps: PositionAlertDeps,
  chain: ChainConfig,
  block: ChainBlock,
  watchers: ReadonlyArray<PositionWatcher>,
  around: ReturnType<typeof positionsAround>,
): Promise<ReadonlyArray<{ readonly webhookId: string; readonly event: RangeAlertEvent }>> => {
  const watching = watchers.filter(
    (w) => w.record.conditions?.out_of_range === true || w.record.conditions?.in_range === true,
  );
  if (watching.length === 0) return [];
  const wallets = new Set(watching.flatMap((w) => w.wallets));
  const held = await deps.ranges.of(chain, block, wallets);
  const byWallet = new Map(held.map((h) => [h.wallet, h.ranges]));
  // A V4 pool id is a hash of its key, the same under two PoolManagers: a pool is known by where
  // its tick is read, its PoolManager and id for V4.
  const tickOf = (r: HeldRange) => (r.kind === "v4" ? `${r.poolManager}|${r.pool}` : r.pool);
  const pools = [...new Map(held.flatMap((h) => h.ranges.map((r) => [tickOf(r), r] as const))).values()];
  if (pools.length === 0) return [];
  const moved = logsTouchPools(block.logs, pools) || block.transactions.some((tx) => wallets.has(tx.from));
  if (!moved) return [];
  const results = await deps.readCalls(chain, pools.map(tickCall), block);
  const ticks = new Map<string, number>();
  pools.forEach((p, i) => {
    const tick = decodeTick(results[i]);
    if (tick !== undefined) ticks.set(tickOf(p), tick);
  });
  const positionKey = (r: HeldRange) => `${r.manager}:0x${r.tokenId.toString(16)}`;
  const reads: Array<RangeRead & { readonly range: HeldRange }> = watching.flatMap((w) =>
    w.wallets.flatMap((wallet) =>
      (byWallet.get(wallet) ?? []).flatMap((range) => {
        const tick = ticks.get(tickOf(range));
        return tick === undefined
          ? []
          : [
              {
                webhookId: w.record.id,
                wallet,
                position: positionKey(range),
                tickLower: range.tickLower,
                tickUpper: range.tickUpper,
                tick,
                range,
              },
            ];
      }),
    ),
  );
  const states = await deps.states.read(block.chain_id);
  const { changes, held: next } = rangeCrossings(reads, states.fired, block);
  if (JSON.stringify(next) !== JSON.stringify(states.fired))
    await deps.states.write(block.chain_id, next as typeof states.fired, states.revision);
  const wanted = changes.filter(
    (c) => watching.find((w) => w.record.id === c.read.webhookId)?.record.conditions?.[c.condition] === true,
  );
  return Promise.all(
    wanted.map(async ({ read, condition }) => {
      const { range } = read as (typeof reads)[number];
      const tokenId = `0x${range.tokenId.toString(16)}`;
      const positions = await around(read.wallet);
      const event: RangeAlertEvent = {
        event_id: `${block.chain_id}:${block.hash}:${read.wallet}:${range.manager}:${tokenId}:${condition}`,
        removed: false,
        condition,
        chain_id: block.chain_id,
        block_number: block.number,
        block_hash: block.hash,
        subscribed_address: read.wallet,
        protocol: range.protocol,
        pool: range.pool,
        position_manager: range.manager,
        token_id: tokenId,
        tick_lower: range.tickLower,
        tick_upper: range.tickUpper,
        tick: read.tick,
        positions_before: entriesHolding(positions.before, range.pool, tokenId),
        positions_after: entriesHolding(positions.after, range.pool, tokenId),
      };
      return { webhookId: read.webhookId, event };
    }),
  );
};
