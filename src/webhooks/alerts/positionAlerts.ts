import type { ChainConfig } from "../../chains/ChainsConfig.js";
import type { RawCall, RawResult } from "../../chains/multicall3.js";
import type { Position } from "../../contracts/Positions.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import type { LendingToken } from "../../indexer/IndexRecords.js";
import type { WebhookRecord } from "../WebhookRecord.js";
import type { AlertStateStore } from "./AlertStates.js";
import { alertScope, passesPositionFilters } from "./alertFilters.js";
import { healthAlerts } from "./healthAlerts.js";
import type { HealthAccount } from "./healthCalls.js";
import { withoutBlocks } from "./healthCrossings.js";
import type { HeldRanges } from "./heldRanges.js";
import type { DebtBook } from "./knownDebts.js";
import { liquidationAlerts } from "./liquidationAlerts.js";
import { rangeAlerts } from "./rangeAlerts.js";
import type { HealthRead } from "./readHealthFactors.js";
import { type ValueChangeDeps, valueChangeAlerts } from "./valueChangeAlerts.js";

/** A `positions` webhook active on a chain, with the wallets it watches. */
export interface PositionWatcher {
  readonly record: WebhookRecord;
  readonly wallets: ReadonlyArray<string>;
}

/** A block as alerts are read at: its number, pinned by its hash. */
export interface BlockAt {
  readonly number: number;
  readonly hash: string;
}

/** What evaluating position alerts needs of the notifier. */
export interface PositionAlertDeps {
  /** Active `positions` webhooks that follow the chain. */
  readonly watchers: (chainId: number) => ReadonlyArray<PositionWatcher>;
  /**
   * Health factors of (wallet, market) accounts at the block, Aave pools, comptrollers and Comets
   * alike: one multicall (readHealthFactors.ts).
   */
  readonly readHealth: (
    chain: ChainConfig,
    accounts: ReadonlyArray<HealthAccount>,
    block: BlockAt,
  ) => Promise<ReadonlyArray<HealthRead>>;
  /** A wallet's positions at a block, exactly as the positions endpoint answers them. */
  readonly readPositions: (
    chain: ChainConfig,
    wallet: string,
    block: BlockAt,
  ) => Promise<ReadonlyArray<Position>>;
  /** Calls at the block in one Multicall3 aggregate3. */
  readonly readCalls: (
    chain: ChainConfig,
    calls: ReadonlyArray<RawCall>,
    block: BlockAt,
  ) => Promise<ReadonlyArray<RawResult>>;
  /** Each watched wallet's V3, Algebra and V4 position NFTs, kept between blocks. */
  readonly ranges: HeldRanges;
  /** Which watched accounts have debt, kept between blocks: the others are not read again (knownDebts.ts). */
  readonly debts: DebtBook;
  /** The index's record of a lending token (a cToken is its own market), if it is one. */
  readonly lendingToken: (chainId: number, token: string) => Promise<LendingToken | undefined>;
  readonly states: AlertStateStore;
  /** `value_change_pct`'s baselines and wallet footprints (valueChangeAlerts.ts); not evaluated without them. */
  readonly values?: ValueChangeDeps;
}

/** Alerts of one block for one webhook. */
export interface WebhookAlerts {
  readonly record: WebhookRecord;
  readonly events: ReadonlyArray<{ readonly webhookId: string; readonly event: object }>;
}

/**
 * A wallet's positions at the block before `block` and at it, each read once however many alerts
 * of the block need them.
 */
export const positionsAround = (deps: PositionAlertDeps, chain: ChainConfig, block: ChainBlock) => {
  const cache = new Map<string, Promise<ReadonlyArray<Position>>>();
  const read = (wallet: string, at: BlockAt) => {
    const key = `${wallet}|${at.hash}`;
    let pending = cache.get(key);
    if (pending === undefined) {
      pending = deps.readPositions(chain, wallet, at);
      cache.set(key, pending);
    }
    return pending;
  };
  const around = async (wallet: string) => {
    const [before, after] = await Promise.all([
      block.number > 0 ? read(wallet, { number: block.number - 1, hash: block.parent_hash }) : [],
      read(wallet, { number: block.number, hash: block.hash }),
    ]);
    return { before, after };
  };
  // value_change_pct reads most wallets at the block alone: the block before only when one alerts.
  return Object.assign(around, {
    after: (wallet: string) => read(wallet, { number: block.number, hash: block.hash }),
  });
};

/**
 * The position alerts of one block, per `positions` webhook: health factors that crossed below a
 * threshold (healthAlerts.ts), positions whose pool tick left or re-entered their range
 * (rangeAlerts.ts), positions whose USD value moved by a share (valueChangeAlerts.ts), then
 * liquidations (liquidationAlerts.ts). All read each wallet's positions through one cache. The
 * first three write the chain's alert states one after the other (each against the revision the
 * one before left). A webhook's `position_types` and `protocols` then filter every kind alike.
 */
export const positionAlerts = async (
  deps: PositionAlertDeps,
  chain: ChainConfig,
  block: ChainBlock,
): Promise<ReadonlyArray<{ readonly record: WebhookRecord; readonly events: ReadonlyArray<object> }>> => {
  const watchers = deps.watchers(block.chain_id);
  if (watchers.length === 0) return [];
  const around = positionsAround(deps, chain, block);
  // Liquidations need no state: read alongside. Its failure is answered by the await below, not
  // reported meanwhile as unhandled.
  const liquidated = liquidationAlerts(deps, chain, block, watchers, around);
  liquidated.catch(() => undefined);
  const health = await healthAlerts(deps, chain, block, watchers, around);
  const ranges = await rangeAlerts(deps, chain, block, watchers, around);
  const values =
    deps.values === undefined
      ? []
      : await valueChangeAlerts(deps, deps.values, chain, block, watchers, around);
  const all = [...health, ...ranges, ...values, ...(await liquidated)];
  return watchers.flatMap(({ record }) => {
    // position_types and protocols decide what is sent, whatever the condition (alertFilters.ts).
    const own = all
      .filter((a) => a.webhookId === record.id && passesPositionFilters(record, alertScope(chain, a.event)))
      .map((a) => a.event);
    return own.length === 0 ? [] : [{ record, events: own }];
  });
};

/**
 * Arms again the alerts a chain's reorg removed the blocks of: their deliveries are retracted
 * (`removed: true`), and a crossing on the new branch alerts anew.
 */
export const forgetRemovedAlerts = async (
  states: AlertStateStore,
  chainId: number,
  removedHashes: ReadonlySet<string>,
): Promise<void> => {
  const held = await states.read(chainId);
  const kept = withoutBlocks(held.fired, removedHashes);
  if (Object.keys(kept).length !== Object.keys(held.fired).length)
    await states.write(chainId, kept, held.revision);
};
