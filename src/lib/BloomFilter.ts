/** Bits per item of each filter: with PROBES probes, about 0.3 % of absent strings are said to be maybe there. */
const BITS_PER_ITEM = 12;
const PROBES = 8;

/** The two hashes `hash` computed last (module state rather than a tuple: a lookup allocates nothing). */
let h1 = 0;
let h2 = 0;

/**
 * Two 32-bit hashes of `s` in one pass (FNV-1a and a multiplicative one), into `h1` (which block)
 * and `h2` (which bits of it). Keys are ASCII, so their UTF-16 units are their bytes.
 */
const hash = (s: string): void => {
  h1 = 0x811c9dc5;
  h2 = 0x9747b28c;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 >>>= 0;
  // Odd, so that its successive products never collapse to zero.
  h2 = (h2 | 1) >>> 0;
};

/** Words of one block: 512 bits, a cache line of eight bytes' words twice over. */
const BLOCK_WORDS = 16;

/**
 * One fixed-size blocked Bloom filter for `capacity` items, probed at the last `hash`: `h1` picks a
 * block of 512 bits and every probe falls inside it, so a lookup touches one cache line instead of
 * PROBES random ones (at the cost of a slightly higher false-positive rate than spread probes).
 */
class FixedBloom {
  readonly #words: Uint32Array;
  readonly #blockMask: number;
  added = 0;

  constructor(readonly capacity: number) {
    const blocks = 2 ** Math.ceil(Math.log2(Math.max(1, (capacity * BITS_PER_ITEM) / (BLOCK_WORDS * 32))));
    this.#words = new Uint32Array(blocks * BLOCK_WORDS);
    this.#blockMask = blocks - 1;
  }

  get bytes(): number {
    return this.#words.byteLength;
  }

  add(): void {
    const base = (h1 & this.#blockMask) * BLOCK_WORDS;
    let x = h2;
    for (let i = 0; i < PROBES; i++) {
      // The top 9 bits of successive multiplications of h2: a bit of the block.
      const bit = x >>> 23;
      this.#words[base + (bit >>> 5)]! |= 1 << (bit & 31);
      x = Math.imul(x, 0x2545f491) >>> 0;
    }
    this.added += 1;
  }

  has(): boolean {
    const base = (h1 & this.#blockMask) * BLOCK_WORDS;
    let x = h2;
    for (let i = 0; i < PROBES; i++) {
      const bit = x >>> 23;
      if ((this.#words[base + (bit >>> 5)]! & (1 << (bit & 31))) === 0) return false;
      x = Math.imul(x, 0x2545f491) >>> 0;
    }
    return true;
  }
}

/**
 * A Bloom filter of strings that grows: `mayHave` answers false only for a string never added, and
 * true for about 0.3 % of the others per table. Items go into the newest table; once it holds its
 * capacity a table twice as large is started, so however many are added the false positives stay
 * few, at 1.5 bytes an item, and a lookup checks one table per doubling.
 */
export class BloomFilter {
  readonly #tables: Array<FixedBloom>;

  constructor(initialCapacity = 1 << 20) {
    this.#tables = [new FixedBloom(initialCapacity)];
  }

  /** Items added, counting repeats. */
  get added(): number {
    return this.#tables.reduce((sum, table) => sum + table.added, 0);
  }

  /** Bytes of its tables. */
  get bytes(): number {
    return this.#tables.reduce((sum, table) => sum + table.bytes, 0);
  }

  add(s: string): void {
    hash(s);
    this.#roomy().add();
  }

  mayHave(s: string): boolean {
    hash(s);
    for (const table of this.#tables) if (table.has()) return true;
    return false;
  }

  /**
   * Adds `s` unless the filter may have it already, hashing it once for both: for items added again
   * and again (a group many keys share), which would otherwise grow the filter with every repeat.
   * Answers whether it was added.
   */
  addNew(s: string): boolean {
    hash(s);
    for (const table of this.#tables) if (table.has()) return false;
    this.#roomy().add();
    return true;
  }

  /** The table new items go into: the newest, or a new one twice its size once it is full. */
  #roomy(): FixedBloom {
    const newest = this.#tables.at(-1)!;
    if (newest.added < newest.capacity) return newest;
    const next = new FixedBloom(newest.capacity * 2);
    this.#tables.push(next);
    return next;
  }
}
