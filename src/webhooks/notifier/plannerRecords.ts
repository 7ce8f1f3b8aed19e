import type { BlockRecordStore, ChainRecords } from "./BlockRecords.js";

/**
 * How long what this notifier last read or wrote stands in for a read, at most, ms. Below the
 * shared consumer's ack wait (10 s): another notifier can plan between two messages this one gets
 * in a row only by taking over a message whose ack was lost, which waits that long.
 */
export const RECORDS_KEPT_MS = 1_000;

/**
 * The block records as the notifier plans with them: each chain's list as this process last read or
 * wrote it, used instead of a read while nothing else can have written it since. Catching up, that
 * saves a round trip to the bucket for every block (which, with no webhook to match, was most of
 * the notifier's cost per block).
 *
 * Every API process's notifier writes these lists, each while it holds the shared consumer's only
 * message in flight, so what this one knows is current when the message it is given directly
 * follows, in stream sequence, the one it planned last, and no longer than `RECORDS_KEPT_MS` ago:
 * no other notifier held a message in between. Anything else (a gap, a pause, a failed plan) and
 * the lists are read again, and no list is used longer than `RECORDS_KEPT_MS` after it was read or
 * written, however closely the messages follow one another. So the one other writer, a node moving
 * its old local records in at its start, is seen within `RECORDS_KEPT_MS`, and a change planned
 * over a list it changed fails on the revision and is planned again from a fresh read: the lists
 * held can delay what it adds by that long, never write over it.
 */
export const plannerRecords = (store: BlockRecordStore, now: () => number) => {
  /** Each chain's list, and when it was read or written: it stands in for a read for RECORDS_KEPT_MS at most. */
  const lists = new Map<number, { readonly records: ChainRecords; readonly at: number }>();
  let last: { readonly seq: number; readonly at: number } | undefined;
  return {
    store: {
      read: async (chainId) => {
        const held = lists.get(chainId);
        if (held !== undefined && now() - held.at < RECORDS_KEPT_MS) return held.records;
        const read = await store.read(chainId);
        lists.set(chainId, { records: read, at: now() });
        return read;
      },
      events: store.events,
      writeEvents: store.writeEvents,
      write: async (change, events) => {
        // Forgotten first: a write that fails may still have been stored.
        lists.delete(change.chainId);
        const written = await store.write(change, events);
        lists.set(change.chainId, { records: written, at: now() });
        return written;
      },
    } satisfies BlockRecordStore,
    /** Before planning stream message `seq`: keeps the lists only if it follows the last one planned here, recently. */
    receiving: (seq: number) => {
      if (last === undefined || seq !== last.seq + 1 || now() - last.at >= RECORDS_KEPT_MS) lists.clear();
    },
    /** Whether stream message `seq` directly follows the one planned here last (no other node planned in between). */
    follows: (seq: number) => last !== undefined && seq === last.seq + 1,
    /** Message `seq` was planned and what it changed is stored (or it changed nothing). */
    planned: (seq: number) => {
      last = { seq, at: now() };
    },
    /** A message could not be planned: the next one reads the lists again. */
    failed: () => {
      last = undefined;
    },
  };
};
