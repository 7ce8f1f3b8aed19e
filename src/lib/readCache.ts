import { approximateBytes } from "./approximateBytes.js";
import { Lru } from "./Lru.js";

/** A read in the cache: shared while pending, weighed once it has resolved. */
interface CachedRead<T> {
  readonly read: Promise<T>;
  value: T | undefined;
}

/**
 * Reads kept in memory by key (for the request path: one wallet, chain and block), bounded by
 * `entries` and by `maxBytes` of what they hold, since clients choose the keys. Concurrent
 * identical requests share one pending read; a failed read is not remembered, so the next
 * request asks the node again. Keys that include the block never go stale: a new block is a
 * new key.
 */
export const makeReadCache = <T>(entries: number, maxBytes: number) => {
  const cache = new Lru<string, CachedRead<T>>(entries, {
    maxBytes,
    // A pending read weighs only its key until its size is known.
    sizeOf: (key, entry) =>
      approximateBytes(key) + (entry.value === undefined ? 0 : approximateBytes(entry.value)),
  });

  /** The read under `key`: the cached or pending one, else `read()`, remembered. */
  const through = (key: string, read: () => Promise<T>): Promise<T> => {
    const cached = cache.get(key);
    if (cached !== undefined) return cached.read;
    const pending = read();
    const entry: CachedRead<T> = { read: pending, value: undefined };
    cache.set(key, entry);
    pending.then(
      (value) => {
        entry.value = value;
        cache.resize(key, entry);
      },
      () => {
        if (cache.peek(key) === entry) cache.delete(key);
      },
    );
    return pending;
  };

  return {
    through,
    /** Reads held. */
    size: () => cache.size,
    /** Approximate bytes the resolved reads hold. */
    bytes: () => cache.bytes,
    /** Reads found in memory (resolved or pending) and reads that had to be made. */
    lookups: () => ({ hits: cache.hits, misses: cache.misses }),
  } as const;
};

export type ReadCache<T> = ReturnType<typeof makeReadCache<T>>;
