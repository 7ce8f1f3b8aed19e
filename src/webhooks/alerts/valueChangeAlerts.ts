import type { ChainConfig } from "../../chains/ChainsConfig.js";
import type { Position } from "../../contracts/Positions.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import { makePromiseSlots } from "../../lib/promiseSlots.js";
import type { FiredAlert } from "./AlertStates.js";
import { passesPositionFilters } from "./alertFilters.js";
import type { PositionAlertDeps, PositionWatcher, positionsAround } from "./positionAlerts.js";
import type { PositionFootprints } from "./positionFootprints.js";
import { positionKey, positionProtocol } from "./positionIdentity.js";
import { type BaselineStore, fitBaselines, type WalletBaselines } from "./ValueBaselines.js";
import {
  type Baselines,
  effectiveBaseline,
  isValueAlertBlockKey,
  settled,
  type ValueCrossing,
  valueAlertBlockKey,
  valueChanges,
} from "./valueChanges.js";

/** What `value_change_pct` needs besides the other alerts' deps. */
export interface ValueChangeDeps {
  readonly baselines: BaselineStore;
  readonly footprints: PositionFootprints;
}

/** One `value_change_pct` element of a `positions` delivery: docs/webhooks.md, "Position alerts". */
export interface ValueChangeAlertEvent {
  /** `<chain_id>:<block_hash>:<wallet>:<position_key>:value_change_pct`. */
  readonly event_id: string;
  readonly removed: boolean;
  readonly condition: "value_change_pct";
  readonly chain_id: number;
  readonly block_number: number;
  readonly block_hash: string;
  readonly subscribed_address: string;
  readonly position_type: Position["type"];
  readonly protocol: string | null;
  /** The position's identity: its type and the contract holding it (positionIdentity.ts). */
  readonly position_key: string;
  /** The webhook's `value_change_pct`, percent. */
  readonly threshold: number;
  /** The baseline: the position's USD value at the last alert (or when first seen), and that block. */
  readonly usd_value_before: number;
  readonly baseline_block_number: number;
  readonly usd_value: number;
  /** Signed percent change from the baseline. */
  readonly change_pct: number;
  /** The position's entry as the positions endpoint shows it at the block before (none: opened since) and at the block. */
  readonly positions_before: ReadonlyArray<Position>;
  readonly positions_after: ReadonlyArray<Position>;
}

/** Wallets read (and their baselines written) at once: the rest wait, rather than pile onto the node or NATS. */
const WALLETS_AT_ONCE = 16;

interface WalletOutcome {
  readonly wallet: string;
  readonly alerts: ReadonlyArray<{ readonly watcher: PositionWatcher; readonly crossing: ValueCrossing }>;
  readonly write: { readonly baselines: WalletBaselines; readonly revision: number } | undefined;
}

/**
 * One wallet at `block`: its positions read once, its footprint kept, and for each webhook that
 * watches it the positions its filters let through measured against their baselines
 * (valueChanges.ts). The block before is read only for positions first seen, and for alerts.
 */
const evaluateWallet = async (
  values: ValueChangeDeps,
  chain: ChainConfig,
  block: ChainBlock,
  wallet: string,
  watchers: ReadonlyArray<PositionWatcher>,
  context: {
    readonly around: ReturnType<typeof positionsAround>;
    readonly fired: Readonly<Record<string, FiredAlert>>;
    readonly oldest: number;
  },
): Promise<WalletOutcome> => {
  const standing = (hash: string) => context.fired[valueAlertBlockKey(hash)] !== undefined;
  const after = await context.around.after(wallet);
  await values.footprints.record(chain, wallet, after);
  const stored = await values.baselines.read(chain.chain_id, wallet);
  let beforeValues: Promise<ReadonlyMap<string, number | undefined>> | undefined;
  const valuesBefore = () => {
    beforeValues ??= context
      .around(wallet)
      .then(({ before }) => new Map(before.map((p) => [positionKey(p), p.usd_value])));
    return beforeValues;
  };
  const next: Record<string, Baselines> = {};
  const alerts: Array<WalletOutcome["alerts"][number]> = [];
  for (const watcher of watchers) {
    const { record } = watcher;
    const threshold = record.conditions?.value_change_pct;
    if (threshold === undefined) continue;
    const own = stored.baselines[record.id] ?? {};
    const watched = after
      .filter((p) => passesPositionFilters(record, { type: p.type, protocol: positionProtocol(chain, p) }))
      .map((p) => ({ key: positionKey(p), usd: p.usd_value }));
    const firstSeen = watched.some(
      (v) =>
        v.usd !== undefined && effectiveBaseline(own[v.key], block, context.oldest, standing) === undefined,
    );
    const before = firstSeen ? await valuesBefore() : new Map<string, number | undefined>();
    const result = valueChanges({
      threshold,
      values: watched,
      stored: own,
      block,
      oldest: context.oldest,
      standing,
      before: (key) => before.get(key),
    });
    if (Object.keys(result.baselines).length > 0) next[record.id] = settled(result.baselines, context.oldest);
    for (const crossing of result.crossings) alerts.push({ watcher, crossing });
  }
  // Baselines of webhooks no longer watching the wallet (deleted, paused, the wallet removed) are
  // not carried over: the wallet's value holds only what is watched.
  const kept = fitBaselines(next);
  const changed = JSON.stringify(kept) !== JSON.stringify(stored.baselines);
  return {
    wallet,
    alerts: alerts.filter(({ watcher }) => kept[watcher.record.id] !== undefined),
    write: changed ? { baselines: kept, revision: stored.revision } : undefined,
  };
};

/**
 * The `value_change_pct` alerts of one block: the wallets whose positions' USD values the block
 * can have moved (positionFootprints.ts: their own transactions, logs of their positions' pools
 * and contracts, swaps in the pools that price their tokens), read at the block, each watched
 * position measured against its baseline. The block's entry in the chain's alert states (one per
 * block with alerts, through which a reorg retracting them restores the baselines they moved) is
 * written first, then the wallets' baselines, both before the alerts are queued: a crash in
 * between plans the block again to the same alerts (valueChanges.ts measures a block planned again
 * from where it started).
 */
export const valueChangeAlerts = async (
  deps: PositionAlertDeps,
  values: ValueChangeDeps,
  chain: ChainConfig,
  block: ChainBlock,
  watchers: ReadonlyArray<PositionWatcher>,
  around: ReturnType<typeof positionsAround>,
): Promise<ReadonlyArray<{ readonly webhookId: string; readonly event: ValueChangeAlertEvent }>> => {
  const watching = watchers.filter((w) => w.record.conditions?.value_change_pct !== undefined);
  if (watching.length === 0) return [];
  const due = values.footprints.due(chain, block, new Set(watching.flatMap((w) => w.wallets)));
  if (due.length === 0) return [];
  try {
    return await dueWalletAlerts(deps, values, chain, block, due, watching, around);
  } catch (error) {
    // The block fails and will be planned again, maybe by another process: the footprints this
    // process keeps no longer continue from it, so the next block it plans refreshes them.
    values.footprints.interrupt(chain.chain_id);
    throw error;
  }
};

/** The alerts of the wallets `due` at `block`, their states and baselines written (see above). */
const dueWalletAlerts = async (
  deps: PositionAlertDeps,
  values: ValueChangeDeps,
  chain: ChainConfig,
  block: ChainBlock,
  due: ReadonlyArray<string>,
  watching: ReadonlyArray<PositionWatcher>,
  around: ReturnType<typeof positionsAround>,
): Promise<ReadonlyArray<{ readonly webhookId: string; readonly event: ValueChangeAlertEvent }>> => {
  const dueSet = new Set(due);
  const watchersOf = new Map<string, Array<PositionWatcher>>();
  for (const watcher of watching)
    for (const wallet of watcher.wallets)
      if (dueSet.has(wallet)) {
        const list = watchersOf.get(wallet);
        if (list === undefined) watchersOf.set(wallet, [watcher]);
        else list.push(watcher);
      }
  // Blocks older than this are past the reorg window (planBlock drops their records).
  const oldest = block.number - chain.finality_depth - chain.confirmations;
  const states = await deps.states.read(block.chain_id);
  const slots = makePromiseSlots(WALLETS_AT_ONCE);
  // A wallet whose read fails is left for a later block (its baseline untouched, its footprint
  // forgotten so that it comes due again) rather than failing the block: the block would be planned
  // again with every other due wallet, and a wallet that always fails would hold the chain's
  // webhooks for good.
  const outcomes = await Promise.all(
    due.map((wallet) =>
      slots(() =>
        evaluateWallet(values, chain, block, wallet, watchersOf.get(wallet) ?? [], {
          around,
          fired: states.fired,
          oldest,
        }).catch((): WalletOutcome => {
          values.footprints.forget(chain.chain_id, wallet);
          return { wallet, alerts: [], write: undefined };
        }),
      ),
    ),
  );

  const fired: Record<string, FiredAlert> = {};
  for (const [key, at] of Object.entries(states.fired))
    if (!isValueAlertBlockKey(key) || at.number >= oldest) fired[key] = at;
  if (outcomes.some((o) => o.alerts.length > 0))
    fired[valueAlertBlockKey(block.hash)] = { number: block.number, hash: block.hash };
  if (JSON.stringify(fired) !== JSON.stringify(states.fired))
    await deps.states.write(block.chain_id, fired, states.revision);
  await Promise.all(
    outcomes.flatMap(({ wallet, write }) =>
      write === undefined
        ? []
        : [slots(() => values.baselines.write(block.chain_id, wallet, write.baselines, write.revision))],
    ),
  );

  return Promise.all(
    outcomes.flatMap(({ wallet, alerts }) =>
      alerts.map(async ({ watcher, crossing }) => {
        const positions = await around(wallet);
        const holding = (list: ReadonlyArray<Position>) =>
          list.filter((p) => positionKey(p) === crossing.key);
        const after = holding(positions.after);
        const position = after[0]!;
        const event: ValueChangeAlertEvent = {
          event_id: `${block.chain_id}:${block.hash}:${wallet}:${crossing.key}:value_change_pct`,
          removed: false,
          condition: "value_change_pct",
          chain_id: block.chain_id,
          block_number: block.number,
          block_hash: block.hash,
          subscribed_address: wallet,
          position_type: position.type,
          protocol: positionProtocol(chain, position),
          position_key: crossing.key,
          threshold: watcher.record.conditions!.value_change_pct!,
          usd_value_before: crossing.baseline.usd,
          baseline_block_number: crossing.baseline.number,
          usd_value: crossing.usd,
          change_pct: crossing.changePct,
          positions_before: holding(positions.before),
          positions_after: after,
        };
        return { webhookId: watcher.record.id, event };
      }),
    ),
  );
};
