/** A memory budget for an Lru whose entries vary in size. */
export interface ByteBudget<K, V> {
  /** Most bytes the entries may hold together (approximately, as `sizeOf` counts them). */
  readonly maxBytes: number;
  /** Approximate bytes of one entry, key included. */
  readonly sizeOf: (key: K, value: V) => number;
}

interface Slot<V> {
  readonly value: V;
  bytes: number;
  /** The insertion count when the entry was last put at the newest end. */
  stamp: number;
}

/**
 * A least-recently-used map bounded by entries and, optionally, by bytes (Map
 * keeps insertion order; a hit re-inserts an entry from the older half). Either
 * bound evicts the least recently used entries; a value larger than the whole
 * budget is not kept.
 */
export class Lru<K, V> {
  readonly #entries = new Map<K, Slot<V>>();
  readonly #budget: ByteBudget<K, V> | undefined;
  #bytes = 0;
  /** Insertions so far: an entry has at most `#inserted - stamp` entries newer than itself. */
  #inserted = 0;
  /** Lookups by `get` that found their key, and those that did not (for cache hit ratios). */
  hits = 0;
  misses = 0;

  constructor(
    readonly capacity: number,
    budget?: ByteBudget<K, V>,
  ) {
    this.#budget = budget;
  }

  get(key: K): V | undefined {
    const slot = this.#entries.get(key);
    if (slot === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // A hit on an entry that may sit in the older half moves it to the newest end. One in the newer
    // half is far from eviction and stays: on a 100,000-entry map a hit that deleted and re-set its
    // entry cost about five lookups (V8 rebuilds the table as deleted slots pile up; see
    // `npm run bench -- index-lookups`), and the index caches take hundreds of hits per request
    // and per block.
    if ((this.#inserted - slot.stamp) * 2 >= this.#entries.size) {
      this.#entries.delete(key);
      slot.stamp = ++this.#inserted;
      this.#entries.set(key, slot);
    }
    return slot.value;
  }

  /** The value without marking it as recently used. */
  peek(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    if (this.capacity === 0) return;
    const bytes = this.#budget?.sizeOf(key, value) ?? 0;
    if (this.#budget !== undefined && bytes > this.#budget.maxBytes) return;
    this.#entries.set(key, { value, bytes, stamp: ++this.#inserted });
    this.#bytes += bytes;
    this.#evict();
  }

  /**
   * Counts the entry's size again, for values that grow after they are stored
   * (a pending read that resolves); no-op when `key` no longer holds `value`.
   */
  resize(key: K, value: V): void {
    const slot = this.#entries.get(key);
    if (slot === undefined || slot.value !== value || this.#budget === undefined) return;
    const bytes = this.#budget.sizeOf(key, slot.value);
    this.#bytes += bytes - slot.bytes;
    slot.bytes = bytes;
    if (bytes > this.#budget.maxBytes) this.delete(key);
    else this.#evict();
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  delete(key: K): void {
    const slot = this.#entries.get(key);
    if (slot === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= slot.bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Approximate bytes held, as the budget's `sizeOf` counts them (0 without a budget). */
  get bytes(): number {
    return this.#bytes;
  }

  #evict() {
    const maxBytes = this.#budget?.maxBytes ?? Number.POSITIVE_INFINITY;
    while (this.#entries.size > this.capacity || this.#bytes > maxBytes) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) return;
      this.delete(oldest.value);
    }
  }
}
