import { makePromiseSlots } from "../lib/promiseSlots.js";

/** Settles one wallet's scan within a batch: done, or failed with `error`. */
export type SettleScan<Entry> = (entry: Entry, error?: unknown) => void;

/** A request's log scan turned away: `max` others asked by requests already wait for theirs. */
export class ScanLineFull extends Error {
  constructor(max: number) {
    super(
      `${max} wallets already wait for their log scans on this worker; this one's history is read when it is asked again`,
    );
  }
}

export interface ScanBatchesDeps<Entry> {
  /** Batches running at once, over all chains. */
  readonly slots: number;
  /**
   * Most scans added as `bounded` (requests' own) that may wait at once, over all chains: a client
   * asking about ever new addresses faster than whole histories are read would otherwise grow the
   * line, and this process's memory, without bound. Those of webhooks' wallets are not counted:
   * their queue paces and bounds them. None when not given.
   */
  readonly boundedMax?: number;
  /** Most wallets one batch takes. */
  readonly batchMax: number;
  /** Names an entry for `isWaiting` (its chain and wallet). */
  readonly keyOf: (entry: Entry) => string;
  /**
   * Scans `entries` on the chain together. It may settle an entry early (its part is done, or
   * failed alone); entries it leaves unsettled settle with it: done when it returns, failed when
   * it throws.
   */
  readonly scan: (chainId: number, entries: ReadonlyArray<Entry>, settle: SettleScan<Entry>) => Promise<void>;
}

/** A wallet's scan waiting for its batch, and every caller waiting for it to settle. */
interface Waiting<Entry> {
  entry: Entry;
  /** Counted against `boundedMax`: every ask for it so far was bounded. */
  bounded: boolean;
  readonly settlers: Array<{ readonly resolve: () => void; readonly reject: (error: unknown) => void }>;
}

/**
 * Wallets whose log scans wait for a slot, scanned together: a batch takes every wallet of its
 * chain waiting when a slot frees (up to `batchMax`). A lone first request is scanned at once;
 * a webhook's thousands of addresses, which arrive faster than whole-history scans finish, wait
 * for a slot together and share its eth_getLogs calls (walletTransferFilters), so a node answers
 * a few hundred wallets for about the calls of one. Each chain has at most one turn asked of the
 * slots at a time, so a queue of 100,000 wallets is one waiting turn, not 100,000. A wallet asked
 * again while it waits keeps its place, once: the newer entry (the job that asked last) replaces
 * the older, and both callers settle with it.
 */
export const makeScanBatches = <Entry>(deps: ScanBatchesDeps<Entry>) => {
  const slots = makePromiseSlots(deps.slots);
  /** Each chain's waiting scans by key, in the order they came. */
  const waiting = new Map<number, Map<string, Waiting<Entry>>>();
  let waitingCount = 0;
  let boundedWaiting = 0;
  /** Chains with a turn asked of the slots and not yet begun: at most one each, whatever waits. */
  const turnAsked = new Set<number>();
  /**
   * Keys of scans running in a batch, each with the asks for it that came meanwhile: they queue
   * once it settles (and then resume where it got), so one wallet's history is never read by two
   * batches at once.
   */
  const running = new Map<string, Array<() => void>>();

  /** Asks the slots for a turn for the chain, unless one is asked already: it takes whatever waits then. */
  const askTurn = (chainId: number) => {
    if (turnAsked.has(chainId)) return;
    turnAsked.add(chainId);
    void slots(() => runBatch(chainId));
  };

  /** Takes up to `batchMax` of the chain's waiting scans, oldest first. */
  const take = (chainId: number): Array<Waiting<Entry>> => {
    const queue = waiting.get(chainId);
    if (queue === undefined) return [];
    const batch: Array<Waiting<Entry>> = [];
    for (const [key, w] of queue) {
      if (batch.length >= deps.batchMax) break;
      queue.delete(key);
      batch.push(w);
    }
    waitingCount -= batch.length;
    boundedWaiting -= batch.filter((w) => w.bounded).length;
    if (queue.size === 0) waiting.delete(chainId);
    // More than one batch waited: the next free slot takes the rest.
    else askTurn(chainId);
    return batch;
  };

  const runBatch = async (chainId: number) => {
    turnAsked.delete(chainId);
    const batch = take(chainId);
    if (batch.length === 0) return;
    const open = new Map<Entry, Waiting<Entry>>(batch.map((w) => [w.entry, w]));
    for (const w of batch) running.set(deps.keyOf(w.entry), []);
    const settle: SettleScan<Entry> = (entry, error) => {
      const one = open.get(entry);
      if (one === undefined) return;
      open.delete(entry);
      for (const s of one.settlers) {
        if (error === undefined) s.resolve();
        else s.reject(error);
      }
      const key = deps.keyOf(entry);
      const askedAgain = running.get(key) ?? [];
      running.delete(key);
      for (const enqueue of askedAgain) enqueue();
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

  /**
   * Puts the entry in its chain's queue; one waiting under the same key takes its place and callers.
   * A bounded entry that would wait beyond `boundedMax` is refused (ScanLineFull) instead.
   */
  const enqueue = (
    chainId: number,
    key: string,
    entry: Entry,
    bounded: boolean,
    resolve: () => void,
    reject: (error: unknown) => void,
  ) => {
    const known = waiting.get(chainId)?.get(key);
    if (known === undefined && bounded && boundedWaiting >= (deps.boundedMax ?? Number.POSITIVE_INFINITY)) {
      reject(new ScanLineFull(deps.boundedMax!));
      return;
    }
    let queue = waiting.get(chainId);
    if (queue === undefined) {
      queue = new Map();
      waiting.set(chainId, queue);
    }
    if (known !== undefined) {
      known.entry = entry;
      known.settlers.push({ resolve, reject });
      if (known.bounded && !bounded) {
        known.bounded = false;
        boundedWaiting--;
      }
    } else {
      queue.set(key, { entry, bounded, settlers: [{ resolve, reject }] });
      waitingCount++;
      if (bounded) boundedWaiting++;
    }
    askTurn(chainId);
  };

  return {
    /**
     * Queues the wallet's scan on the chain (once the one running for it settles, if any); settles
     * when its batch has scanned it (or failed). `bounded`: a request's own, refused with
     * ScanLineFull when `boundedMax` of those wait already.
     */
    add: (chainId: number, entry: Entry, bounded = false): Promise<void> =>
      new Promise<void>((resolve, reject) => {
        const key = deps.keyOf(entry);
        // Asked again once the running scan settles: by then another ask may have started one.
        const ask = () => {
          const askedAgain = running.get(key);
          if (askedAgain !== undefined) askedAgain.push(ask);
          else enqueue(chainId, key, entry, bounded, resolve, reject);
        };
        ask();
      }),
    /** Whether the entry named `key` waits for a batch to take it (its chain is part of the key). */
    isWaiting: (chainId: number, key: string): boolean => waiting.get(chainId)?.has(key) ?? false,
    /** Wallets waiting for a batch, over all chains. */
    waiting: (): number => waitingCount,
  };
};
