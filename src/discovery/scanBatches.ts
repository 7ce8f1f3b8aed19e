import { makePromiseSlots } from "../lib/promiseSlots.js";

/** Settles one wallet's scan within a batch: done, or failed with `error`. */
export type SettleScan<Entry> = (entry: Entry, error?: unknown) => void;

export interface ScanBatchesDeps<Entry> {
  /** Batches running at once, over all chains. */
  readonly slots: number;
  /** Most wallets one batch takes. */
  readonly batchMax: number;
  /**
   * Scans `entries` on the chain together. It may settle an entry early (its part is done, or
   * failed alone); entries it leaves unsettled settle with it: done when it returns, failed when
   * it throws.
   */
  readonly scan: (chainId: number, entries: ReadonlyArray<Entry>, settle: SettleScan<Entry>) => Promise<void>;
}

interface Waiting<Entry> {
  readonly entry: Entry;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Wallets whose log scans wait for a slot, scanned together: a batch takes every wallet of its
 * chain waiting when a slot frees (up to `batchMax`). A lone first request is scanned at once, as
 * before; a webhook's thousands of addresses, which arrive faster than whole-history scans finish,
 * wait for a slot together and share its eth_getLogs calls (walletTransferFilters), so a node
 * answers a few hundred wallets for the calls of one.
 */
export const makeScanBatches = <Entry>(deps: ScanBatchesDeps<Entry>) => {
  const slots = makePromiseSlots(deps.slots);
  const waiting = new Map<number, Array<Waiting<Entry>>>();

  const runBatch = async (chainId: number) => {
    const queue = waiting.get(chainId);
    // An earlier turn took them already.
    if (queue === undefined || queue.length === 0) return;
    const batch = queue.splice(0, deps.batchMax);
    if (queue.length === 0) waiting.delete(chainId);
    const open = new Map<Entry, Waiting<Entry>>(batch.map((w) => [w.entry, w]));
    const settle: SettleScan<Entry> = (entry, error) => {
      const one = open.get(entry);
      if (one === undefined) return;
      open.delete(entry);
      if (error === undefined) one.resolve();
      else one.reject(error);
    };
    try {
      await deps.scan(
        chainId,
        batch.map((w) => w.entry),
        settle,
      );
      for (const entry of [...open.keys()]) settle(entry);
    } catch (error) {
      const failure = error ?? new Error("the batch's scan failed");
      for (const entry of [...open.keys()]) settle(entry, failure);
    }
  };

  return {
    /** Queues the wallet's scan on the chain; settles when its batch has scanned it (or failed). */
    add: (chainId: number, entry: Entry): Promise<void> =>
      new Promise<void>((resolve, reject) => {
        const queue = waiting.get(chainId) ?? [];
        queue.push({ entry, resolve, reject });
        waiting.set(chainId, queue);
        // One turn per wallet queued: each takes whatever of its chain is still waiting then.
        void slots(() => runBatch(chainId));
      }),
    /** Wallets waiting for a batch, over all chains. */
    waiting: (): number => {
      let total = 0;
      for (const queue of waiting.values()) total += queue.length;
      return total;
    },
  };
};
