import type { ChainConfig } from "../../chains/ChainsConfig.js";
import type { ChainBlock, ChainReorg } from "../../domain/ChainBlock.js";
import { forgetRemovedAlerts } from "../alerts/positionAlerts.js";
import type { QueuedDelivery } from "../outbox/QueuedDelivery.js";
import type { BlockEvents } from "./BlockEvents.js";
import { type BlockRecordStore, isNoChange, type RecordedBlock, type RecordsChange } from "./BlockRecords.js";
import { appearanceOf, type EventSlots, enqueueDeliveries } from "./enqueue.js";
import { type MatchDeps, matchBlock } from "./matchBlock.js";

/**
 * A planned chain event: the deliveries it queues in the replicated outbox, and
 * the change to its chain's block records, written after them.
 */
export interface NotifierPlan {
  readonly deliveries: ReadonlyArray<QueuedDelivery>;
  /** Undefined when the records stay as they are. */
  readonly records: RecordsChange | undefined;
}

export interface PlanDeps extends MatchDeps {
  readonly records: BlockRecordStore;
  readonly now: () => number;
}

export const NOTHING: NotifierPlan = { deliveries: [], records: undefined };

const isActive = (deps: PlanDeps, id: string) => deps.recordOf(id)?.active === true;

/**
 * A recorded block released now: its events queued for the webhooks active now, and the others
 * named in the record as withheld.
 */
const release = async (
  deps: PlanDeps,
  chain: ChainConfig,
  block: RecordedBlock,
  slots: EventSlots,
  now: number,
): Promise<{ readonly deliveries: ReadonlyArray<QueuedDelivery>; readonly released: RecordedBlock }> => {
  const deliveries: Array<QueuedDelivery> = [];
  const withheld: Array<string> = [];
  for (const events of await deps.records.events(chain.chain_id, block)) {
    if (isActive(deps, events.webhook_id))
      deliveries.push(...enqueueDeliveries(events, false, slots, now, block.appearance));
    else withheld.push(events.webhook_id);
  }
  return { deliveries, released: { ...block, released: true, withheld } };
};

/**
 * The retractions of a released block's events: for every webhook they were queued for that still
 * exists, active or not. An inactive one keeps its queue (docs/webhooks.md), so its retraction
 * waits behind the events it takes back, and both go when it is reactivated.
 */
const retract = async (
  deps: PlanDeps,
  chain: ChainConfig,
  block: RecordedBlock,
  slots: EventSlots,
  now: number,
): Promise<ReadonlyArray<QueuedDelivery>> =>
  (await deps.records.events(chain.chain_id, block)).flatMap((events) =>
    wasQueued(deps, block, events.webhook_id)
      ? enqueueDeliveries(events, true, slots, now, block.appearance)
      : [],
  );

/**
 * Whether a released block's events were queued for the webhook, which still exists: unless its
 * release withheld them (none, for a block released at once: it matched active webhooks only). A
 * block released by an earlier version has no record of what it withheld, and is judged as that
 * version did, by whether the webhook is active now.
 */
const wasQueued = (deps: PlanDeps, block: RecordedBlock, webhookId: string): boolean => {
  if (deps.recordOf(webhookId) === undefined) return false;
  return block.withheld !== undefined ? !block.withheld.includes(webhookId) : isActive(deps, webhookId);
};

/**
 * The plan for one CHAIN_EVENTS block: its events per matching webhook, queued
 * at once or, on a chain with `confirmations`, once that many blocks follow;
 * recorded blocks now confirmed are queued; records older than the reorg
 * window are dropped. A block already recorded (a block published twice, or an
 * event planned again after a crash) adds nothing. Webhooks inactive at
 * queueing time get nothing (and, withheld, no retraction later).
 */
export const planBlock = async (
  deps: PlanDeps,
  chain: ChainConfig,
  block: ChainBlock,
  slots: EventSlots,
): Promise<NotifierPlan> => {
  if (block.source !== "live") return NOTHING;
  const now = deps.now();
  const before = await deps.records.read(chain.chain_id);
  const deliveries: Array<QueuedDelivery> = [];
  const immediate = chain.confirmations === 0;

  let added: RecordsChange["added"];
  if (!before.blocks.some((b) => b.number === block.number && b.hash === block.hash)) {
    const events = (await matchBlock(deps, chain, block)).map(
      (m): BlockEvents => ({
        webhook_id: m.record.id,
        team_id: m.record.team_id,
        type: m.record.type,
        chain_id: block.chain_id,
        block_number: block.number,
        block_hash: block.hash,
        events: m.events,
      }),
    );
    if (events.length > 0) {
      const appearance = appearanceOf(slots);
      added = {
        number: block.number,
        hash: block.hash,
        released: immediate,
        appearance,
        ...(immediate ? { withheld: [] } : {}),
        events,
      };
      if (immediate)
        for (const e of events) deliveries.push(...enqueueDeliveries(e, false, slots, now, appearance));
    }
  }

  const kept: Array<RecordedBlock> = [];
  const dropped: Array<RecordedBlock> = [];
  const oldest = block.number - chain.finality_depth - chain.confirmations;
  for (const recorded of before.blocks) {
    let b = recorded;
    if (!b.released && b.number <= block.number - chain.confirmations) {
      const released = await release(deps, chain, b, slots, now);
      deliveries.push(...released.deliveries);
      b = released.released;
    }
    (b.number < oldest ? dropped : kept).push(b);
  }
  const change: RecordsChange = { chainId: chain.chain_id, revision: before.revision, kept, added, dropped };
  return { deliveries, records: isNoChange(change, before) ? undefined : change };
};

/**
 * Whether every event of the chain plans nothing now: no address is watched (so no block matches;
 * matchBlock.ts) and no block of the chain is recorded (so none is released or retracted). The
 * notifier then acknowledges the event without reading it: a deployment with no webhook pays no
 * parse per block.
 */
export const nothingToPlan = async (deps: PlanDeps, chainId: number): Promise<boolean> =>
  deps.watchedAddresses() === 0 && (await deps.records.read(chainId)).blocks.length === 0;

/**
 * The plan for a reorg: every recorded block it removed is dropped; events
 * already queued (or delivered) are queued again with `removed: true` under
 * new webhook-ids, for every webhook they were queued for that still exists
 * (an inactive one gets it on reactivation), and events still waiting for confirmations are simply
 * forgotten. Position alerts fired at a removed block are armed again.
 */
export const planReorg = async (
  deps: PlanDeps,
  chain: ChainConfig,
  reorg: ChainReorg,
  slots: EventSlots,
): Promise<NotifierPlan> => {
  const now = deps.now();
  if (deps.positions !== undefined)
    await forgetRemovedAlerts(
      deps.positions.states,
      chain.chain_id,
      new Set(reorg.removed.map((b) => b.hash)),
    );
  const before = await deps.records.read(chain.chain_id);
  const deliveries: Array<QueuedDelivery> = [];
  const dropped: Array<RecordedBlock> = [];
  for (const removed of reorg.removed) {
    const recorded = before.blocks.find((b) => b.number === removed.number && b.hash === removed.hash);
    if (recorded === undefined) continue;
    dropped.push(recorded);
    if (recorded.released) deliveries.push(...(await retract(deps, chain, recorded, slots, now)));
  }
  if (dropped.length === 0) return NOTHING;
  const kept = before.blocks.filter((b) => !dropped.includes(b));
  return {
    deliveries,
    records: { chainId: chain.chain_id, revision: before.revision, kept, added: undefined, dropped },
  };
};

/** Whether no event of any of `chainIds` can plan anything now (nothingToPlan for each). */
export const nothingToPlanAnywhere = async (deps: PlanDeps, chainIds: Iterable<number>): Promise<boolean> => {
  for (const chainId of chainIds) if (!(await nothingToPlan(deps, chainId))) return false;
  return true;
};
