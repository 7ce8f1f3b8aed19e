import { ADDRESS_BYTES, parseAddress } from "../addressKeys.js";

/** Slots are added (the table doubled) once more than this share of them is used. */
const MAX_LOAD = 0.7;
const NONE = -1;

/** A slot: the address as five 32-bit words, then its first member + 1 (0: the slot is free). */
const SLOT_INTS = 6;
const HEAD = 5;
/** A member: its webhook's index, then the next member of the same address (or of the free list). */
const MEMBER_INTS = 2;

const EMPTY: ReadonlyArray<string> = [];

/**
 * A 32-bit hash of an address's five words at `at` (addresses are not uniform in every byte: test
 * and vanity ones are not).
 */
const hashWords = (w: Int32Array, at: number): number => {
  let h = 0x9e3779b9;
  for (let i = 0; i < 5; i++) {
    h = Math.imul(h ^ w[at + i]!, 0x85ebca6b);
    h ^= h >>> 13;
  }
  h = Math.imul(h ^ (h >>> 16), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
};

/**
 * The watched addresses and the webhooks watching each, without one JavaScript object per
 * address: an open-addressing table (linear probing) whose slots are six 32-bit ints in one typed
 * array, the address's five words and its first member, each member a (webhook, next) pair in
 * another, and webhook ids interned once. A million addresses in a `Map<string, Set<string>>` were
 * about 3 million small objects (330 bytes an address), and the notifier's CPU per block grew
 * 2.1-2.4x from a thousand to a million of them (longer collection pauses, slower lookups). Typed
 * arrays hold nothing for the collector to follow; with them the per-block cost measured flat
 * (docs/benchmarks.md). A slot's fields side by side make a probe one memory read rather than
 * three (key bytes, used flag, first member in arrays of their own): with 3M addresses (a 200 MB
 * table, whose probes nearly all miss the caches) inserts took 28-40% less time, lookups 25-37%;
 * 10M inserts took 7.8-8.5 s against 14.6-16.4 s.
 *
 * Keys that are not `0x` + 40 hex digits (none are written by this service) are kept in a plain
 * map, so the table stays exact whatever the bucket holds. Lookups ignore the case of hex digits.
 */
export class AddressTable {
  /** Slots of SLOT_INTS each; a power of two of them. */
  #capacity = 0;
  #slots = new Int32Array(0);
  #count = 0;

  /** Members of MEMBER_INTS each; free ones chained through their `next`. */
  #members = new Int32Array(0);
  #freeMember = NONE;

  /** Interned webhook ids, with how many members name each; freed indexes are reused. */
  readonly #ids: Array<string> = [];
  readonly #indexOfId = new Map<string, number>();
  readonly #refs: Array<number> = [];
  readonly #freeIds: Array<number> = [];

  /** Keys that are not EVM addresses, as given. */
  readonly #others = new Map<string, Set<string>>();

  readonly #scratch = new Uint8Array(ADDRESS_BYTES);
  /** The address being looked up or changed, as five words. */
  readonly #key = new Int32Array(5);

  constructor(initialCapacity = 1024) {
    this.#resize(2 ** Math.ceil(Math.log2(Math.max(16, initialCapacity))));
    this.#growMembers(Math.max(16, initialCapacity));
  }

  /** How many addresses have at least one webhook. */
  get size(): number {
    return this.#count + this.#others.size;
  }

  /** Webhook ids watching `address` (empty when none). */
  webhooksFor(address: string): ReadonlyArray<string> {
    if (!parseAddress(address, this.#scratch)) {
      const set = this.#others.get(address);
      return set === undefined ? EMPTY : [...set];
    }
    const slot = this.#find(this.#scratch, 0);
    if (slot === NONE) return EMPTY;
    const ids: Array<string> = [];
    const members = this.#members;
    for (let m = this.#slots[slot + HEAD]! - 1; m !== NONE; m = members[m + 1]!)
      ids.push(this.#ids[members[m]!]!);
    return ids;
  }

  /** `webhookId` watches `address` (a repeat changes nothing). */
  add(address: string, webhookId: string): void {
    if (parseAddress(address, this.#scratch)) {
      this.addKey(this.#scratch, 0, webhookId);
      return;
    }
    const set = this.#others.get(address) ?? new Set<string>();
    set.add(webhookId);
    this.#others.set(address, set);
  }

  /** `webhookId` no longer watches `address` (nothing happens if it did not). */
  remove(address: string, webhookId: string): void {
    if (parseAddress(address, this.#scratch)) {
      this.removeKey(this.#scratch, 0, webhookId);
      return;
    }
    const set = this.#others.get(address);
    set?.delete(webhookId);
    if (set?.size === 0) this.#others.delete(address);
  }

  /** `add` for the 20-byte key at `keys[at..]` (a packed list's, with no string made for it). */
  addKey(keys: Uint8Array, at: number, webhookId: string): void {
    let slot = this.#find(keys, at);
    if (slot === NONE) {
      if (this.#count + 1 > this.#capacity * MAX_LOAD) this.#resize(this.#capacity * 2);
      slot = this.#insert(this.#key, 0);
    }
    const members = this.#members;
    const known = this.#indexOfId.get(webhookId);
    if (known !== undefined)
      for (let m = this.#slots[slot + HEAD]! - 1; m !== NONE; m = members[m + 1]!)
        if (members[m] === known) return;
    const member = this.#takeMember();
    this.#members[member] = this.#intern(webhookId);
    this.#members[member + 1] = this.#slots[slot + HEAD]! - 1;
    this.#slots[slot + HEAD] = member + 1;
  }

  /** `remove` for the 20-byte key at `keys[at..]`. */
  removeKey(keys: Uint8Array, at: number, webhookId: string): void {
    const id = this.#indexOfId.get(webhookId);
    const slot = this.#find(keys, at);
    if (id === undefined || slot === NONE) return;
    const members = this.#members;
    let previous = NONE;
    for (let m = this.#slots[slot + HEAD]! - 1; m !== NONE; previous = m, m = members[m + 1]!) {
      if (members[m] !== id) continue;
      if (previous === NONE) this.#slots[slot + HEAD] = members[m + 1]! + 1;
      else members[previous + 1] = members[m + 1]!;
      this.#releaseMember(m);
      this.#release(id);
      break;
    }
    if (this.#slots[slot + HEAD] === 0) this.#deleteSlot(slot);
  }

  /** The slot (its first int) holding the 20-byte key at `keys[at..]`, or NONE; the key is left in `#key`. */
  #find(keys: Uint8Array, at: number): number {
    const key = this.#key;
    for (let i = 0; i < 5; i++) {
      const b = at + 4 * i;
      key[i] = keys[b]! | (keys[b + 1]! << 8) | (keys[b + 2]! << 16) | (keys[b + 3]! << 24);
    }
    const slots = this.#slots;
    const mask = this.#capacity - 1;
    for (let s = hashWords(key, 0) & mask; slots[s * SLOT_INTS + HEAD] !== 0; s = (s + 1) & mask) {
      const base = s * SLOT_INTS;
      if (
        slots[base] === key[0] &&
        slots[base + 1] === key[1] &&
        slots[base + 2] === key[2] &&
        slots[base + 3] === key[3] &&
        slots[base + 4] === key[4]
      )
        return base;
    }
    return NONE;
  }

  /**
   * Puts the key in `words[at..at+5]`, known to be absent, in its first free slot, with no member
   * yet (its head is set by the caller before the table is used again); answers the slot.
   */
  #insert(words: Int32Array, at: number): number {
    const slots = this.#slots;
    const mask = this.#capacity - 1;
    let s = hashWords(words, at) & mask;
    while (slots[s * SLOT_INTS + HEAD] !== 0) s = (s + 1) & mask;
    const base = s * SLOT_INTS;
    for (let i = 0; i < 5; i++) slots[base + i] = words[at + i]!;
    this.#count++;
    return base;
  }

  /**
   * Empties a slot and shifts back the entries after it whose probe would otherwise cross the hole
   * (linear probing's deletion without tombstones, so lookups never slow down with removals).
   */
  #deleteSlot(slot: number): void {
    const slots = this.#slots;
    const mask = this.#capacity - 1;
    let hole = slot / SLOT_INTS;
    slots[slot + HEAD] = 0;
    this.#count--;
    for (let s = (hole + 1) & mask; slots[s * SLOT_INTS + HEAD] !== 0; s = (s + 1) & mask) {
      const home = hashWords(slots, s * SLOT_INTS) & mask;
      // The entry at `s` may move into the hole only if its home is not in (hole, s], cyclically.
      const stays = hole <= s ? hole < home && home <= s : hole < home || home <= s;
      if (stays) continue;
      slots.copyWithin(hole * SLOT_INTS, s * SLOT_INTS, (s + 1) * SLOT_INTS);
      slots[s * SLOT_INTS + HEAD] = 0;
      hole = s;
    }
  }

  #resize(capacity: number): void {
    const old = this.#slots;
    this.#capacity = capacity;
    this.#slots = new Int32Array(capacity * SLOT_INTS);
    this.#count = 0;
    for (let base = 0; base < old.length; base += SLOT_INTS) {
      if (old[base + HEAD] === 0) continue;
      this.#slots[this.#insert(old, base) + HEAD] = old[base + HEAD]!;
    }
  }

  #takeMember(): number {
    if (this.#freeMember === NONE) this.#growMembers((this.#members.length / MEMBER_INTS) * 2);
    const member = this.#freeMember;
    this.#freeMember = this.#members[member + 1]!;
    return member;
  }

  #releaseMember(member: number): void {
    this.#members[member + 1] = this.#freeMember;
    this.#freeMember = member;
  }

  /** Room for `length` members; the new ones join the free list, lowest first. */
  #growMembers(length: number): void {
    const before = this.#members.length;
    const members = new Int32Array(length * MEMBER_INTS);
    members.set(this.#members);
    for (let m = members.length - MEMBER_INTS; m >= before; m -= MEMBER_INTS) {
      members[m + 1] = this.#freeMember;
      this.#freeMember = m;
    }
    this.#members = members;
  }

  #intern(webhookId: string): number {
    let index = this.#indexOfId.get(webhookId);
    if (index === undefined) {
      index = this.#freeIds.pop() ?? this.#ids.length;
      this.#ids[index] = webhookId;
      this.#refs[index] = 0;
      this.#indexOfId.set(webhookId, index);
    }
    this.#refs[index]!++;
    return index;
  }

  #release(index: number): void {
    if (--this.#refs[index]! > 0) return;
    this.#indexOfId.delete(this.#ids[index]!);
    this.#ids[index] = "";
    this.#freeIds.push(index);
  }
}
