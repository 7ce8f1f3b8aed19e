import type { BlockEvents } from "./BlockEvents.js";

/** A block that produced events for some webhook, as its chain's record list holds it. */
export interface RecordedBlock {
  readonly number: number;
  readonly hash: string;
  /** Its events were queued; false while it waits for the chain's `confirmations`. */
  readonly released: boolean;
  /** How many stored values hold its events (split to stay well under a message's size limit). */
  readonly parts: number;
  /**
   * The lowest stream sequence the store gave its parts: none of them is below it, so the events
   * of dropped blocks can be swept by sequence (kvBlockRecords.ts). Lists written before it was
   * recorded lack it.
   */
  readonly seq?: number;
  /**
   * appearanceOf the block message that brought it: its deliveries' ids name it, so a block
   * brought back after a reorg is delivered anew. Lists written before it was recorded lack it.
   */
  readonly appearance?: string;
  /**
   * Webhooks whose events were not queued when the block was released, being inactive then: a
   * reorg retracts nothing of theirs, since they were sent nothing.
   */
  readonly withheld?: ReadonlyArray<string>;
}

/** A chain's recorded blocks, oldest first, and the revision a change must be written against. */
export interface ChainRecords {
  readonly blocks: ReadonlyArray<RecordedBlock>;
  readonly revision: number;
}

/**
 * One planned change to a chain's records. The store writes the new block's events first, then
 * the list (revision-checked: a change planned over a list another node has since changed fails,
 * and the chain event is planned again), then forgets the events of the dropped blocks.
 */
export interface RecordsChange {
  readonly chainId: number;
  readonly revision: number;
  /** The blocks kept from the list read, some now released. */
  readonly kept: ReadonlyArray<RecordedBlock>;
  /** The block this event added, with its events per webhook. */
  readonly added:
    | {
        readonly number: number;
        readonly hash: string;
        readonly released: boolean;
        /** Undefined only for records moved from a version that kept none (their ids stay as first sent). */
        readonly appearance?: string;
        /** Set (empty) when released at once: queued for every webhook it matched. */
        readonly withheld?: ReadonlyArray<string>;
        readonly events: ReadonlyArray<BlockEvents>;
      }
    | undefined;
  /** Blocks taken off the list: reorganised away, or older than the reorg window. */
  readonly dropped: ReadonlyArray<RecordedBlock>;
}

/** The added block's events as `writeEvents` stored them. */
export interface EventsWritten {
  /** How many stored values hold them. */
  readonly parts: number;
  /** The lowest stream sequence the store gave them. */
  readonly seq: number;
}

/**
 * Where the notifier keeps what each block produced for each webhook. Every API process plans
 * blocks from the same shared consumer, so a block planned on one process may be confirmed or
 * reorganised away while another plans: the records are shared, not per process.
 */
export interface BlockRecordStore {
  readonly read: (chainId: number) => Promise<ChainRecords>;
  /** The events a recorded block produced, one entry per webhook. */
  readonly events: (chainId: number, block: RecordedBlock) => Promise<ReadonlyArray<BlockEvents>>;
  /**
   * Stores the events of a block about to be added, which no list names yet. The notifier starts
   * this while the block's first sends are out. What a crash or a failed plan leaves of it before
   * the list names it is written again when the block is planned again (the keys are the block's),
   * or, planned differently then, swept with dropped blocks' events once below every listed block.
   */
  readonly writeEvents: (
    chainId: number,
    added: NonNullable<RecordsChange["added"]>,
  ) => Promise<EventsWritten>;
  /**
   * Applies the change: the added block's events (unless `events` says they are stored), the list,
   * then the dropped blocks' events. Answers the list as written and its new revision (what a read
   * would now answer).
   */
  readonly write: (change: RecordsChange, events?: EventsWritten) => Promise<ChainRecords>;
}

/** A change that leaves the records as they are. */
export const isNoChange = (change: RecordsChange, before: ChainRecords): boolean =>
  change.added === undefined &&
  change.dropped.length === 0 &&
  change.kept.length === before.blocks.length &&
  change.kept.every((b, i) => b === before.blocks[i]);

/** At most this many bytes of JSON per stored part: a quarter of NATS's default 1 MB message limit. */
export const PART_BYTES = 256 * 1024;

/**
 * A block's events split into parts of at most `budget` bytes of JSON each (one event over the
 * budget goes alone). A webhook whose events span parts appears in each with its share; `joinParts`
 * puts it back together, in order.
 */
export const splitParts = (
  records: ReadonlyArray<BlockEvents>,
  budget = PART_BYTES,
): ReadonlyArray<ReadonlyArray<BlockEvents>> => {
  const parts: Array<Array<BlockEvents>> = [];
  let part: Array<BlockEvents> = [];
  let size = 0;
  const close = () => {
    if (part.length > 0) parts.push(part);
    part = [];
    size = 0;
  };
  for (const record of records) {
    const head = JSON.stringify({ ...record, events: [] }).length;
    let events: Array<object> = [];
    for (const event of record.events) {
      const bytes = JSON.stringify(event).length + 1;
      if (size + head + bytes > budget && (events.length > 0 || part.length > 0)) {
        if (events.length > 0) part.push({ ...record, events });
        close();
        events = [];
      }
      if (events.length === 0) size += head;
      events.push(event);
      size += bytes;
    }
    if (events.length > 0) part.push({ ...record, events });
  }
  close();
  return parts;
};

/**
 * `splitParts` as the JSON each part is stored as. A block's events mostly fit one part: then it
 * is one stringify, where splitting measured every event and the store stringified it all again
 * (a few percent of the notifier's CPU per block).
 */
export const partsJson = (
  records: ReadonlyArray<BlockEvents>,
  budget = PART_BYTES,
): ReadonlyArray<string> => {
  const whole = JSON.stringify(records);
  return whole.length <= budget ? [whole] : splitParts(records, budget).map((part) => JSON.stringify(part));
};

/** The inverse of `splitParts`: one entry per webhook, its events in order. */
export const joinParts = (parts: ReadonlyArray<ReadonlyArray<BlockEvents>>): ReadonlyArray<BlockEvents> => {
  const byWebhook = new Map<string, BlockEvents>();
  for (const part of parts)
    for (const record of part) {
      const seen = byWebhook.get(record.webhook_id);
      byWebhook.set(
        record.webhook_id,
        seen === undefined ? record : { ...seen, events: [...seen.events, ...record.events] },
      );
    }
  return [...byWebhook.values()];
};
