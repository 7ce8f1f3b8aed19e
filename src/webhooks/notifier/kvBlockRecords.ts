import type { JetStreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { bucketStream } from "../../nats/JetStreamSetup.js";
import { leaderGets } from "../../nats/leaderReads.js";
import type { BlockEvents } from "./BlockEvents.js";
import {
  type BlockRecordStore,
  type ChainRecords,
  type EventsWritten,
  joinParts,
  partsJson,
  type RecordedBlock,
  type RecordsChange,
} from "./BlockRecords.js";
import { eventsSweep } from "./eventsSweep.js";

/**
 * Layout of the `webhook_blocks` bucket:
 * - `c.<chain>`                  -> RecordedBlock[]: the chain's recorded blocks, oldest first
 * - `e.<chain>.<number>.<hash>.<i>` -> BlockEvents[]: part `i` of what that block produced
 */
export const chainListKey = (chainId: number) => `c.${chainId}`;
export const eventsPartKey = (chainId: number, number: number, hash: string, part: number) =>
  `e.${chainId}.${number}.${hash}.${part}`;
/** Every part of one block's events, as a subject filter within the bucket. */
export const eventsFilter = (chainId: number, number: number, hash: string) =>
  `e.${chainId}.${number}.${hash}.>`;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encode = (value: unknown) => encoder.encode(JSON.stringify(value));
const decode = <A>(bytes: Uint8Array) => JSON.parse(decoder.decode(bytes)) as A;

/** Removes the bucket's messages matching a key filter: all of them, or only those below stream sequence `below`. */
export type BucketPurge = (filter: string, below?: number) => Promise<void>;

/** BucketPurge through the JetStream API, on the `webhook_blocks` bucket's stream. */
export const streamPurge =
  (jsm: JetStreamManager): BucketPurge =>
  async (filter, below) => {
    const subject = `$KV.webhook_blocks.${filter}`;
    await jsm.streams.purge(
      bucketStream("webhook_blocks"),
      below === undefined ? { filter: subject } : { filter: subject, seq: below },
    );
  };

/** Every events key of a chain, as a subject filter within the bucket. */
export const chainEventsFilter = (chainId: number) => `e.${chainId}.>`;

/**
 * The lowest sequence the parts of `blocks` use, when every one of them says (lists written before
 * blocks recorded it do not); with none listed, `revision`: the list's own write, which every part
 * named later follows.
 */
const sweepBound = (blocks: ReadonlyArray<RecordedBlock>, revision: number): number | undefined => {
  let lowest = revision;
  for (const b of blocks) {
    if (b.seq === undefined) return undefined;
    lowest = Math.min(lowest, b.seq);
  }
  return lowest;
};

/**
 * The block records in a replicated KV bucket. Dropped blocks' events are swept by sequence in the
 * background (eventsSweep.ts), or, while the list still names blocks that lack their sequence,
 * purged by their keys before the write answers. Either way they leave nothing behind in the
 * stream (a delete would leave one marker per block for ever).
 */
export const kvBlockRecords = (
  kv: KV,
  purge: BucketPurge,
  options: { readonly warn?: (message: string) => void; readonly sweepEvery?: number } = {},
) => {
  const writeEvents: BlockRecordStore["writeEvents"] = async (chainId, { number, hash, events }) => {
    const parts = partsJson(events);
    const revisions = await Promise.all(
      parts.map((json, i) => kv.put(eventsPartKey(chainId, number, hash, i), encoder.encode(json))),
    );
    return { parts: parts.length, seq: Math.min(...revisions) };
  };
  // A chain's list and a block's events are read by whichever process plans the next event, often a
  // moment after another wrote them: a replica answering a direct get may not hold them yet. A list
  // read without its newest block would let a reorg retract nothing and write nothing (no revision
  // check to fail), and a part read as missing would be left out of the deliveries, both for good.
  // The leader holds every acknowledged write.
  const fromLeader = leaderGets(kv, (message) =>
    options.warn?.(
      `${message}: a block's events are read by direct gets, which a lagging replica may answer without them; grant the api user STREAM.MSG.GET on KV_webhook_blocks (nats.conf of this version) and restart`,
    ),
  );
  const sweep = eventsSweep((chainId, below) => purge(chainEventsFilter(chainId), below), options.sweepEvery);
  const store: BlockRecordStore = {
    read: async (chainId): Promise<ChainRecords> => {
      const entry = await fromLeader(chainListKey(chainId));
      if (entry === null) return { blocks: [], revision: 0 };
      return {
        blocks: entry.operation === "PUT" ? decode<ReadonlyArray<RecordedBlock>>(entry.value) : [],
        revision: entry.revision,
      };
    },
    events: async (chainId, block) => {
      const parts = await Promise.all(
        Array.from({ length: block.parts }, (_, i) =>
          fromLeader(eventsPartKey(chainId, block.number, block.hash, i)),
        ),
      );
      // Parts are written before the list names them and purged only after it stops naming them.
      return joinParts(
        parts.flatMap((p) =>
          p !== null && p.operation === "PUT" ? [decode<ReadonlyArray<BlockEvents>>(p.value)] : [],
        ),
      );
    },
    writeEvents,
    write: async (change: RecordsChange, written?: EventsWritten) => {
      const blocks = [...change.kept];
      if (change.added !== undefined) {
        const { number, hash, released, appearance, withheld } = change.added;
        const { parts, seq } = written ?? (await writeEvents(change.chainId, change.added));
        blocks.push({
          number,
          hash,
          released,
          parts,
          seq,
          ...(appearance === undefined ? {} : { appearance }),
          ...(withheld === undefined ? {} : { withheld }),
        });
        blocks.sort((a, b) => a.number - b.number);
      }
      const key = chainListKey(change.chainId);
      const revision =
        change.revision === 0
          ? await kv.create(key, encode(blocks))
          : await kv.update(key, encode(blocks), change.revision);
      if (change.dropped.length > 0) {
        const below = sweepBound(blocks, revision);
        if (below !== undefined) sweep.dropped(change.chainId, change.dropped.length, below);
        else
          await Promise.all(change.dropped.map((b) => purge(eventsFilter(change.chainId, b.number, b.hash))));
      }
      return { blocks, revision };
    },
  };
  return { ...store, sweeps: sweep.settled } as const;
};
