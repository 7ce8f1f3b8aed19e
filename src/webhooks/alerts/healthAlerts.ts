import type { ChainConfig } from "../../chains/ChainsConfig.js";
import type { Position } from "../../contracts/Positions.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import { type HealthCrossing, type HealthWatch, healthCrossings, rearmLevel } from "./healthCrossings.js";
import { movedMarkets } from "./healthInputs.js";
import { accountsOf, selectReads } from "./knownDebts.js";
import { type LendingMarket, lendingMarketsOf, marketsKey } from "./lendingMarkets.js";
import { cTokensOf, marketEntries } from "./marketEntries.js";
import type { PositionAlertDeps, PositionWatcher, positionsAround } from "./positionAlerts.js";
import { walletsNamed } from "./walletsNamed.js";

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
  /** The Aave pool, the cToken comptroller or the Comet market. */
  readonly lending_pool: string;
  readonly threshold: number;
  /** The health factor at or above which this alert is armed again. */
  readonly rearm_above: number;
  /** The market's own health factor (the positions endpoint's) at the block before, and at this block. */
  readonly health_factor_before: number | null;
  readonly health_factor: number;
  /** The wallet's entries in this market as the positions endpoint shows them, before and after the block. */
  readonly positions_before: ReadonlyArray<Position>;
  readonly positions_after: ReadonlyArray<Position>;
}

/** Each webhook's `health_factor_below` watch, for the webhooks that set one. */
const healthWatches = (watchers: ReadonlyArray<PositionWatcher>): ReadonlyArray<HealthWatch> =>
  watchers.flatMap(({ record, wallets }) => {
    const threshold = record.conditions?.health_factor_below;
    return threshold === undefined ? [] : [{ webhookId: record.id, threshold, wallets }];
  });

/**
 * The health factors of `block` worth reading (knownDebts.ts), read in one multicall alongside the
 * chain's fired alerts, and the known debts advanced by them. Nothing is read when the block moved
 * no market (healthInputs.ts) and names no watched wallet (walletsNamed.ts).
 */
const readMoved = async (
  deps: PositionAlertDeps,
  chain: ChainConfig,
  block: ChainBlock,
  markets: ReadonlyArray<LendingMarket>,
  wallets: ReadonlySet<string>,
) => {
  const key = marketsKey(markets);
  const known = deps.debts.continuing(block.chain_id, block, key);
  const involved = walletsNamed(block, wallets);
  const moved = await movedMarkets(block, markets, (addresses) =>
    Promise.all(addresses.map((address) => deps.lendingToken(block.chain_id, address))),
  );
  const evaluated = moved === "all" || moved.size > 0 || involved.size > 0;
  const selection = evaluated ? selectReads(known, wallets, markets, involved, moved) : [];
  const accounts = accountsOf(selection);
  if (accounts.length === 0) {
    deps.debts.advance(block.chain_id, known, block, key, wallets, selection, []);
    return undefined;
  }
  const [reads, states] = await Promise.all([
    deps.readHealth(chain, accounts, block),
    deps.states.read(block.chain_id),
  ]);
  deps.debts.advance(block.chain_id, known, block, key, wallets, selection, reads);
  return { reads, states };
};

/**
 * The `health_factor_below` alerts of one block: the health factors the block can have moved, of
 * every watched wallet's account in every Aave pool, cToken comptroller and Comet market of the
 * chain, read in one multicall (readMoved), and crossings below a webhook's threshold become alerts
 * (healthCrossings.ts), the fired alerts being written before they are queued. Only crossing wallets
 * pay the reads the payload carries: their health factors at the block before (one more multicall)
 * and their positions before and after. A wallet whose history is still being discovered (just
 * added, its history older than the index) has no positions in the index yet: its alert then
 * carries empty position lists, the health factors being read anyway.
 */
export const healthAlerts = async (
  deps: PositionAlertDeps,
  chain: ChainConfig,
  block: ChainBlock,
  watchers: ReadonlyArray<PositionWatcher>,
  around: ReturnType<typeof positionsAround>,
): Promise<ReadonlyArray<{ readonly webhookId: string; readonly event: HealthAlertEvent }>> => {
  const watches = healthWatches(watchers);
  const markets = lendingMarketsOf(chain);
  if (watches.length === 0 || markets.length === 0) return [];
  const wallets = deps.debts.watched(
    block.chain_id,
    watches.map((w) => w.wallets),
  );
  const read = await readMoved(deps, chain, block, markets, wallets);
  if (read === undefined) return [];
  const { reads, states } = read;
  const { crossings, fired } = healthCrossings(watches, reads, states.fired, block);
  if (JSON.stringify(fired) !== JSON.stringify(states.fired))
    await deps.states.write(block.chain_id, fired, states.revision);
  if (crossings.length === 0) return [];

  const marketOf = new Map(markets.map((m) => [m.address, m]));
  const before =
    block.number > 0
      ? await deps.readHealth(
          chain,
          crossings.map(({ wallet, pool }) => ({ wallet, pool, design: marketOf.get(pool)!.design })),
          { number: block.number - 1, hash: block.parent_hash },
        )
      : [];
  const healthBefore = (c: HealthCrossing) =>
    before.find((b) => b.wallet === c.wallet && b.pool === c.pool)?.healthFactor ?? null;
  return Promise.all(
    crossings.map(async (crossing) => {
      const { wallet, pool } = crossing;
      const market = marketOf.get(pool)!;
      const positions = await around(wallet);
      const cTokens = cTokensOf([...positions.before, ...positions.after]);
      const records = await Promise.all(cTokens.map((t) => deps.lendingToken(block.chain_id, t)));
      const comptrollers = new Map(cTokens.map((t, i) => [t, records[i]?.market]));
      const comptrollerOf = (cToken: string) => comptrollers.get(cToken);
      const event: HealthAlertEvent = {
        event_id: `${block.chain_id}:${block.hash}:${wallet}:${pool}:health_factor_below`,
        removed: false,
        condition: "health_factor_below",
        chain_id: block.chain_id,
        block_number: block.number,
        block_hash: block.hash,
        subscribed_address: wallet,
        protocol: market.protocol,
        lending_pool: pool,
        threshold: crossing.threshold,
        rearm_above: rearmLevel(crossing.threshold),
        health_factor_before: healthBefore(crossing),
        health_factor: crossing.healthFactor,
        positions_before: marketEntries(positions.before, market, comptrollerOf),
        positions_after: marketEntries(positions.after, market, comptrollerOf),
      };
      return { webhookId: crossing.webhookId, event };
    }),
  );
};
