import { Lru } from "../lib/Lru.js";
import type { Header, SearchSeed } from "./blockAtTime.js";

/**
 * One chain's final headers (number -> timestamp) that searches for "the block at a time" read,
 * kept so that the next search starts from them. A final header never changes, so entries never go
 * stale; only those below the head minus the chain's finality depth may be added.
 *
 * The Lru decides what is kept (the `capacity` most recently used). Beside it, the headers are
 * kept in number order (which is timestamp order) to find the two around a time; that list may
 * still hold headers the Lru has dropped (they are true all the same) and is cut back to the Lru's
 * when it grows past twice the capacity, so memory stays bounded.
 */
export class FinalHeaders {
  readonly #kept: Lru<number, number>;
  #sorted: Array<Header> = [];

  constructor(readonly capacity: number) {
    this.#kept = new Lru(capacity);
  }

  add(header: Header): void {
    const at = this.#firstAtOrAbove((h) => h.number >= header.number);
    if (this.#sorted[at]?.number !== header.number) this.#sorted.splice(at, 0, header);
    this.#kept.set(header.number, header.timestamp);
    if (this.#sorted.length > 2 * this.capacity)
      this.#sorted = this.#sorted.filter((h) => this.#kept.peek(h.number) !== undefined);
  }

  /**
   * The highest header known at or before `time` and the lowest after it. When they are
   * consecutive blocks, the first is the answer for every time from its timestamp up to the
   * second's (exclusive), and no node call is needed.
   */
  around(time: number): SearchSeed {
    const at = this.#firstAtOrAbove((h) => h.timestamp > time);
    const below = this.#sorted[at - 1];
    const above = this.#sorted[at];
    // What a search starts from is used: it stays.
    for (const header of [below, above])
      if (header !== undefined) this.#kept.set(header.number, header.timestamp);
    return { below, above };
  }

  get size(): number {
    return this.#kept.size;
  }

  /** The first index of #sorted where `test` holds (it holds from there on), or its length. */
  #firstAtOrAbove(test: (header: Header) => boolean): number {
    let lo = 0;
    let hi = this.#sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (test(this.#sorted[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
