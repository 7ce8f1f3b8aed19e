import { type ChainConfig, protocolsOf } from "../../chains/ChainsConfig.js";
import type { Position } from "../../contracts/Positions.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import { type Liquidation, type LiquidationLeg, liquidationsOf } from "./liquidations.js";
import type { PositionAlertDeps, PositionWatcher, positionsAround } from "./positionAlerts.js";

/** One `liquidated` element of a `positions` delivery: docs/webhooks.md, "Position alerts". */
export interface LiquidationAlertEvent {
  /** `<chain_id>:<block_hash>:<wallet>:<transaction_hash>:l<log_index>:liquidated`. */
  readonly event_id: string;
  readonly removed: boolean;
  readonly condition: "liquidated";
  readonly chain_id: number;
  readonly block_number: number;
  readonly block_hash: string;
  readonly transaction_hash: string;
  readonly subscribed_address: string;
  readonly protocol: string | null;
  /** The contract that emitted the liquidation: the Aave pool, the borrowed cToken, or the Comet. */
  readonly lending_pool: string;
  readonly liquidator: string;
  /** What was taken from the wallet and what of its debt was paid, as the events say (raw amounts). */
  readonly seized: ReadonlyArray<LiquidationLeg>;
  readonly repaid: ReadonlyArray<LiquidationLeg>;
  readonly positions_before: ReadonlyArray<Position>;
  readonly positions_after: ReadonlyArray<Position>;
}

/** The wallet's entries of the liquidated market: its pool, market or one of the cTokens named. */
const inMarket = (positions: ReadonlyArray<Position>, liquidation: Liquidation) => {
  const named = new Set([liquidation.market, ...liquidation.seized.map((leg) => leg.token)]);
  return positions.filter(
    (p) =>
      ("lending_pool" in p && p.lending_pool === liquidation.market) ||
      ("market" in p && typeof p.market === "string" && named.has(p.market)) ||
      (liquidation.design === "ctoken" && "token" in p && typeof p.token === "string" && named.has(p.token)),
  );
};

/**
 * The protocol of a liquidation's emitter when it is a market of the design its event belongs to
 * (any contract can emit the events): an Aave pool or a Comet of the registry, or a cToken the
 * index recorded under a comptroller of the registry. `undefined`: not a market, no alert.
 */
const protocolOf = async (
  deps: PositionAlertDeps,
  chain: ChainConfig,
  liquidation: Liquidation,
): Promise<string | undefined> => {
  const registry = protocolsOf(chain);
  if (liquidation.design === "ctoken") {
    const record = await deps.lendingToken(chain.chain_id, liquidation.market);
    if (record?.kind !== "ctoken") return undefined;
    return registry.find((p) => p.address === record.market && p.kind === "ctoken")?.protocol;
  }
  const kinds = liquidation.design === "aave" ? ["aave_v2", "aave_v3"] : ["comet"];
  return registry.find((p) => p.address === liquidation.market && kinds.includes(p.kind))?.protocol;
};

/**
 * The `liquidated` alerts of one block: the liquidation events of the block's logs whose account
 * is a wallet of a webhook with `liquidated: true` (no chain read to find them), one alert per
 * transaction, wallet and market, with the amounts the events carry and the wallet's positions
 * in that market before and after. Each liquidation is an event of its own block, so a block
 * planned again yields the same alerts and needs no state.
 */
export const liquidationAlerts = async (
  deps: PositionAlertDeps,
  chain: ChainConfig,
  block: ChainBlock,
  watchers: ReadonlyArray<PositionWatcher>,
  around: ReturnType<typeof positionsAround>,
): Promise<ReadonlyArray<{ readonly webhookId: string; readonly event: LiquidationAlertEvent }>> => {
  const watching = watchers.filter((w) => w.record.conditions?.liquidated === true);
  if (watching.length === 0) return [];
  const wallets = new Set(watching.flatMap((w) => w.wallets));
  const found = liquidationsOf(block.logs, wallets);
  if (found.length === 0) return [];
  const alerts = await Promise.all(
    found.map(async (liquidation) => {
      const protocol = await protocolOf(deps, chain, liquidation);
      if (protocol === undefined) return [];
      const positions = await around(liquidation.wallet);
      const event: LiquidationAlertEvent = {
        event_id: `${block.chain_id}:${block.hash}:${liquidation.wallet}:${liquidation.transactionHash}:l${liquidation.logIndex}:liquidated`,
        removed: false,
        condition: "liquidated",
        chain_id: block.chain_id,
        block_number: block.number,
        block_hash: block.hash,
        transaction_hash: liquidation.transactionHash,
        subscribed_address: liquidation.wallet,
        protocol,
        lending_pool: liquidation.market,
        liquidator: liquidation.liquidator,
        seized: liquidation.seized,
        repaid: liquidation.repaid,
        positions_before: inMarket(positions.before, liquidation),
        positions_after: inMarket(positions.after, liquidation),
      };
      return watching
        .filter((w) => w.wallets.includes(liquidation.wallet))
        .map((w) => ({ webhookId: w.record.id, event }));
    }),
  );
  return alerts.flat();
};
