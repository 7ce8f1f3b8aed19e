import { type ChainConfig, protocolsOf } from "../../chains/ChainsConfig.js";
import type { Position } from "../../contracts/Positions.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import { type HealthCrossing, type HealthWatch, healthCrossings, rearmLevel } from "./healthCrossings.js";
import { aavePoolsOf, healthInputsMoved } from "./healthInputs.js";
import type { PositionAlertDeps, PositionWatcher, positionsAround } from "./positionAlerts.js";

/** One `health_factor_below` element of a `positions` delivery: docs/webhooks.md, "Position alerts". */
export interface HealthAlertEvent {
  /** `<chain_id>:<block_hash>:<wallet>:<lending_pool>:health_factor_below`. */
  readonly event_id: string;
  readonly removed: boolean;
  readonly condition: "health_factor_below";
  readonly chain_id: number;
  readonly block_number: number;
  readonly block_hash: string;
  readonly subscribed_address: string;
  readonly protocol: string | null;
  readonly lending_pool: string;
  readonly threshold: number;
  /** The health factor at or above which this alert is armed again. */
  readonly rearm_above: number;
  /** The pool's own `getUserAccountData` health factor at the block before, and at this block. */
  readonly health_factor_before: number | null;
  readonly health_factor: number;
  /** The wallet's entries in this pool as the positions endpoint shows them, before and after the block. */
  readonly positions_before: ReadonlyArray<Position>;
  readonly positions_after: ReadonlyArray<Position>;
}

const inPool = (positions: ReadonlyArray<Position>, pool: string) =>
  positions.filter((p) => "lending_pool" in p && p.lending_pool === pool);

/** Each webhook's `health_factor_below` watch, for the webhooks that set one. */
const healthWatches = (watchers: ReadonlyArray<PositionWatcher>): ReadonlyArray<HealthWatch> =>
  watchers.flatMap(({ record, wallets }) => {
    const threshold = record.conditions?.health_factor_below;
    return threshold === undefined ? [] : [{ webhookId: record.id, threshold, wallets }];
  });

/**
 * The `health_factor_below` alerts of one block: when the block can have moved a watched health
 * factor (healthInputs.ts), every watched wallet's account in every Aave pool of the chain is read
 * in one multicall, and crossings below a webhook's threshold become alerts (healthCrossings.ts),
 * the fired alerts being written before they are queued. Only crossing wallets pay the reads the
 * payload carries: their health factors at the block before (one more multicall) and their
 * positions before and after. A wallet whose history is still being discovered (just added, its
 * history older than the index) has no positions in the index yet: its alert then carries empty
 * position lists, the health factors being read anyway.
 */
export const healthAlerts = async (
  deps: PositionAlertDeps,
  chain: ChainConfig,
  block: ChainBlock,
  watchers: ReadonlyArray<PositionWatcher>,
  around: ReturnType<typeof positionsAround>,
): Promise<ReadonlyArray<{ readonly webhookId: string; readonly event: HealthAlertEvent }>> => {
  const watches = healthWatches(watchers);
  const pools = aavePoolsOf(chain);
  if (watches.length === 0 || pools.length === 0) return [];
  const wallets = new Set(watches.flatMap((w) => w.wallets));
  if (!healthInputsMoved(block, new Set(pools), wallets)) return [];
  const accounts = [...wallets].flatMap((wallet) => pools.map((pool) => ({ wallet, pool })));
  const [reads, states] = await Promise.all([
    deps.readHealth(chain, accounts, block),
    deps.states.read(block.chain_id),
  ]);
  const { crossings, fired } = healthCrossings(watches, reads, states.fired, block);
  if (JSON.stringify(fired) !== JSON.stringify(states.fired))
    await deps.states.write(block.chain_id, fired, states.revision);
  if (crossings.length === 0) return [];

  const before =
    block.number > 0
      ? await deps.readHealth(
          chain,
          crossings.map(({ wallet, pool }) => ({ wallet, pool })),
          { number: block.number - 1, hash: block.parent_hash },
        )
      : [];
  const healthBefore = (c: HealthCrossing) =>
    before.find((b) => b.wallet === c.wallet && b.pool === c.pool)?.healthFactor ?? null;
  return Promise.all(
    crossings.map(async (crossing) => {
      const { wallet, pool } = crossing;
      const positions = await around(wallet);
      const event: HealthAlertEvent = {
        event_id: `${block.chain_id}:${block.hash}:${wallet}:${pool}:health_factor_below`,
        removed: false,
        condition: "health_factor_below",
        chain_id: block.chain_id,
        block_number: block.number,
        block_hash: block.hash,
        subscribed_address: wallet,
        protocol: protocolsOf(chain).find((p) => p.address === pool)?.protocol ?? null,
        lending_pool: pool,
        threshold: crossing.threshold,
        rearm_above: rearmLevel(crossing.threshold),
        health_factor_before: healthBefore(crossing),
        health_factor: crossing.healthFactor,
        positions_before: inPool(positions.before, pool),
        positions_after: inPool(positions.after, pool),
      };
      return { webhookId: crossing.webhookId, event };
    }),
  );
};
