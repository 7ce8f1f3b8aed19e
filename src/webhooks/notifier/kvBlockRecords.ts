import type { KV } from "@nats-io/kv";
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

/**
 * The block records in a replicated KV bucket. `purge` removes every message of a key filter from
 * the bucket's stream: dropped blocks' events leave nothing behind (a delete would leave one marker
 * per block for ever).
 */
export const kvBlockRecords = (kv: KV, purge: (filter: string) => Promise<void>): BlockRecordStore => {
  const writeEvents: BlockRecordStore["writeEvents"] = async (chainId, { number, hash, events }) => {
    const parts = partsJson(events);
    await Promise.all(
      parts.map((json, i) => kv.put(eventsPartKey(chainId, number, hash, i), encoder.encode(json))),
    );
    return { parts: parts.length };
  };
  return {
    read: async (chainId): Promise<ChainRecords> => {
      const entry = await kv.get(chainListKey(chainId));
      if (entry === null) return { blocks: [], revision: 0 };
      return {
        blocks: entry.operation === "PUT" ? decode<ReadonlyArray<RecordedBlock>>(entry.value) : [],
        revision: entry.revision,
      };
    },
    events: async (chainId, block) => {
      const parts = await Promise.all(
        Array.from({ length: block.parts }, (_, i) =>
          kv.get(eventsPartKey(chainId, block.number, block.hash, i)),
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
        const { number, hash, released } = change.added;
        const { parts } = written ?? (await writeEvents(change.chainId, change.added));
        blocks.push({ number, hash, released, parts });
        blocks.sort((a, b) => a.number - b.number);
      }
      const key = chainListKey(change.chainId);
      const revision =
        change.revision === 0
          ? await kv.create(key, encode(blocks))
          : await kv.update(key, encode(blocks), change.revision);
      await Promise.all(change.dropped.map((b) => purge(eventsFilter(change.chainId, b.number, b.hash))));
      return { blocks, revision };
    },
  };
};
