import type { BlockEvents } from "../../src/webhooks/notifier/BlockEvents.js";
import {
  type BlockRecordStore,
  joinParts,
  type RecordedBlock,
  splitParts,
} from "../../src/webhooks/notifier/BlockRecords.js";

/**
 * Block records in memory, with the bucket's rules: a list written at a stale revision fails, parts
 * are split as stored. `parts` shows what is kept, so a test sees dropped blocks' events go.
 */
export const memoryBlockRecords = (budget?: number) => {
  const lists = new Map<number, { blocks: ReadonlyArray<RecordedBlock>; revision: number }>();
  const parts = new Map<string, ReadonlyArray<BlockEvents>>();
  let revision = 0;
  const partKey = (chainId: number, b: { number: number; hash: string }, i: number) =>
    `${chainId}.${b.number}.${b.hash}.${i}`;
  const writeEvents: BlockRecordStore["writeEvents"] = async (chainId, added) => {
    const split = splitParts(added.events, budget);
    for (const [i, part] of split.entries()) parts.set(partKey(chainId, added, i), part);
    return { parts: split.length, seq: ++revision };
  };
  const store: BlockRecordStore = {
    read: async (chainId) => lists.get(chainId) ?? { blocks: [], revision: 0 },
    events: async (chainId, block) =>
      joinParts(Array.from({ length: block.parts }, (_, i) => parts.get(partKey(chainId, block, i)) ?? [])),
    writeEvents,
    write: async (change, events) => {
      const current = lists.get(change.chainId)?.revision ?? 0;
      if (current !== change.revision) throw new Error("wrong last sequence");
      const blocks = [...change.kept];
      if (change.added !== undefined) {
        const written = events ?? (await writeEvents(change.chainId, change.added));
        const { events: _, ...added } = change.added;
        blocks.push({ ...added, parts: written.parts });
        blocks.sort((a, b) => a.number - b.number);
      }
      const written = {
        // As the bucket keeps them, less the stream sequence (this store has no stream).
        blocks: blocks.map(({ seq: _, ...kept }) => kept),
        revision: ++revision,
      };
      lists.set(change.chainId, written);
      for (const b of change.dropped)
        for (const key of [...parts.keys()])
          if (key.startsWith(`${change.chainId}.${b.number}.${b.hash}.`)) parts.delete(key);
      return written;
    },
  };
  return { store, parts };
};
