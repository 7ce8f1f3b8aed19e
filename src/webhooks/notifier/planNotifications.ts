import type { ChainConfig } from "../../chains/ChainsConfig.js";
import type { ChainBlock, ChainReorg } from "../../domain/ChainBlock.js";
import type { Operation } from "../../indexer/applyBlock.js";
import type { Db } from "../../storage/Level.js";
import {
  blockEventsKey,
  blockEventsPrefix,
  blockEventsRange,
  end,
  pendingKey,
} from "../delivery/outboxKeys.js";
import type { QueuedDelivery } from "../delivery/QueuedDelivery.js";
import type { BlockEvents, PendingBlock } from "./BlockEvents.js";
import { type EventSlots, enqueueDeliveries } from "./enqueue.js";
import { type MatchDeps, matchBlock } from "./matchBlock.js";

/**
 * A planned chain event: the deliveries it queues in the replicated outbox, and
 * this node's LevelDB writes (block records, blocks waiting for confirmations).
 */
export interface NotifierPlan {
  readonly deliveries: ReadonlyArray<QueuedDelivery>;
  readonly ops: ReadonlyArray<Operation>;
}

export interface PlanDeps extends MatchDeps {
  readonly db: Db;
  readonly now: () => number;
}

const recordsOf = async (db: Db, prefix: string) => {
  const out: Array<{ key: string; value: BlockEvents }> = [];
  for await (const [key, value] of db.iterator({ gte: prefix, lt: end(prefix) }))
    out.push({ key: key as string, value: value as BlockEvents });
  return out;
};

const isActive = (deps: PlanDeps, id: string) => deps.recordOf(id)?.active === true;

/**
 * The outbox writes for one CHAIN_EVENTS block: its events per matching webhook
 * (recorded per block, so a block seen twice adds nothing), queued at once or,
 * on a chain with `confirmations`, once that many blocks follow; blocks now
 * confirmed are queued; records older than the reorg window are pruned.
 * Webhooks inactive at queueing time get nothing.
 */
export const planBlock = async (
  deps: PlanDeps,
  chain: ChainConfig,
  block: ChainBlock,
  slots: EventSlots,
): Promise<NotifierPlan> => {
  if (block.source !== "live") return { deliveries: [], ops: [] };
  const now = deps.now();
  const ops: Array<Operation> = [];
  const deliveries: Array<QueuedDelivery> = [];
  const matched = await matchBlock(deps, chain, block);
  const keys = matched.map((m) => blockEventsKey(block.chain_id, block.number, block.hash, m.record.id));
  const seen = await deps.db.getMany(keys);
  const immediate = chain.confirmations === 0;
  matched.forEach((m, i) => {
    if (seen[i] !== undefined) return;
    const record: BlockEvents = {
      webhook_id: m.record.id,
      team_id: m.record.team_id,
      type: m.record.type,
      chain_id: block.chain_id,
      block_number: block.number,
      block_hash: block.hash,
      released: immediate,
      events: m.events,
    };
    ops.push({ type: "put", key: keys[i]!, value: record });
    if (immediate) deliveries.push(...enqueueDeliveries(record, false, slots, now));
  });

  if (!immediate) {
    const pending =
      ((await deps.db.get(pendingKey(chain.chain_id))) as ReadonlyArray<PendingBlock> | undefined) ?? [];
    const waiting =
      seen.some((s, i) => s === undefined && matched[i] !== undefined) &&
      !pending.some((p) => p.hash === block.hash)
        ? [...pending, { number: block.number, hash: block.hash }]
        : pending;
    const due = waiting.filter((p) => p.number <= block.number - chain.confirmations);
    for (const p of due) {
      for (const { key, value } of await recordsOf(
        deps.db,
        blockEventsPrefix(chain.chain_id, p.number, p.hash),
      )) {
        if (value.released) continue;
        ops.push({ type: "put", key, value: { ...value, released: true } satisfies BlockEvents });
        if (!isActive(deps, value.webhook_id)) continue;
        deliveries.push(...enqueueDeliveries(value, false, slots, now));
      }
    }
    ops.push({
      type: "put",
      key: pendingKey(chain.chain_id),
      value: waiting.filter((p) => !due.includes(p)),
    });
  }

  const range = blockEventsRange(chain.chain_id, block.number - chain.finality_depth - chain.confirmations);
  for await (const key of deps.db.keys(range)) ops.push({ type: "del", key: key as string });
  return { deliveries, ops };
};

/**
 * The outbox writes for a reorg: every block record of a removed block is
 * dropped; events already queued (or delivered) are queued again with
 * `removed: true` under new webhook-ids, and events still waiting for
 * confirmations are simply forgotten.
 */
export const planReorg = async (
  deps: PlanDeps,
  chain: ChainConfig,
  reorg: ChainReorg,
  slots: EventSlots,
): Promise<NotifierPlan> => {
  const now = deps.now();
  const ops: Array<Operation> = [];
  const deliveries: Array<QueuedDelivery> = [];
  for (const removed of reorg.removed) {
    for (const { key, value } of await recordsOf(
      deps.db,
      blockEventsPrefix(chain.chain_id, removed.number, removed.hash),
    )) {
      ops.push({ type: "del", key });
      if (!value.released || !isActive(deps, value.webhook_id)) continue;
      deliveries.push(...enqueueDeliveries(value, true, slots, now));
    }
  }
  const pending =
    ((await deps.db.get(pendingKey(chain.chain_id))) as ReadonlyArray<PendingBlock> | undefined) ?? [];
  const gone = new Set(reorg.removed.map((b) => b.hash));
  if (pending.some((p) => gone.has(p.hash)))
    ops.push({
      type: "put",
      key: pendingKey(chain.chain_id),
      value: pending.filter((p) => !gone.has(p.hash)),
    });
  return { deliveries, ops };
};
