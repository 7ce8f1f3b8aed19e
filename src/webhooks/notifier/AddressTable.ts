/** Bytes of an EVM address. */
const ADDRESS_BYTES = 20;
/** Slots are added (the table doubled) once more than this share of them is used. */
const MAX_LOAD = 0.7;
const NONE = -1;

const EMPTY: ReadonlyArray<string> = [];

/** The value of one hex digit's char code, or -1. */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX[65 + i] = 10 + i;
  HEX[97 + i] = 10 + i;
}

/** Writes `0x` + 40 hex digits (either case) into `out` as 20 bytes; false for anything else. */
const parseAddress = (address: string, out: Uint8Array): boolean => {
  if (address.length !== 2 + 2 * ADDRESS_BYTES || address.charCodeAt(0) !== 48) return false;
  const x = address.charCodeAt(1);
  if (x !== 120 && x !== 88) return false;
  for (let i = 0; i < ADDRESS_BYTES; i++) {
    const hi = HEX[address.charCodeAt(2 + 2 * i)] ?? -1;
    const lo = HEX[address.charCodeAt(3 + 2 * i)] ?? -1;
    if (hi < 0 || lo < 0) return false;
    out[i] = (hi << 4) | lo;
  }
  return true;
};

/** A 32-bit hash of 20 address bytes (addresses are not uniform in every byte: test and vanity ones are not). */
const hashAddress = (bytes: Uint8Array): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < ADDRESS_BYTES; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
};

/**
 * The watched addresses and the webhooks watching each, without one JavaScript object per
 * address: an open-addressing table of 20-byte keys in typed arrays, each slot heading a list of
 * (webhook) members in two more, and webhook ids interned once. A million addresses in a
 * `Map<string, Set<string>>` were about 3 million small objects (330 bytes an address), and the
 * notifier's CPU per block grew 2.1-2.4x from a thousand to a million of them (longer collection
 * pauses, slower lookups). Typed arrays hold nothing for the collector to follow; with them the
 * per-block cost measured flat (docs/benchmarks.md).
 *
 * Keys that are not `0x` + 40 hex digits (none are written by this service) are kept in a plain
 * map, so the table stays exact whatever the bucket holds. Lookups ignore the case of hex digits.
 */
export class AddressTable {
  /** Slots: `used[s]` 1 when slot `s` holds `keys[s*20..]`, whose first member is `first[s]`. */
  #capacity = 0;
  #used = new Uint8Array(0);
  #keys = new Uint8Array(0);
  #first = new Int32Array(0);
  #count = 0;

  /** Members: webhook index and the next member of the same address; free ones chained by `next`. */
  #memberWebhook = new Int32Array(0);
  #memberNext = new Int32Array(0);
  #freeMember = NONE;

  /** Interned webhook ids, with how many members name each; freed indexes are reused. */
  readonly #ids: Array<string> = [];
  readonly #indexOfId = new Map<string, number>();
  readonly #refs: Array<number> = [];
  readonly #freeIds: Array<number> = [];

  /** Keys that are not EVM addresses, as given. */
  readonly #others = new Map<string, Set<string>>();

  readonly #scratch = new Uint8Array(ADDRESS_BYTES);

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
    const slot = this.#find(this.#scratch);
    if (slot === NONE) return EMPTY;
    const ids: Array<string> = [];
    for (let m = this.#first[slot]!; m !== NONE; m = this.#memberNext[m]!)
      ids.push(this.#ids[this.#memberWebhook[m]!]!);
    return ids;
  }

  /** `webhookId` watches `address` (a repeat changes nothing). */
  add(address: string, webhookId: string): void {
    if (!parseAddress(address, this.#scratch)) {
      const set = this.#others.get(address) ?? new Set<string>();
      set.add(webhookId);
      this.#others.set(address, set);
      return;
    }
    let slot = this.#find(this.#scratch);
    if (slot === NONE) {
      if (this.#count + 1 > this.#capacity * MAX_LOAD) this.#resize(this.#capacity * 2);
      slot = this.#insertKey(this.#scratch);
    }
    const known = this.#indexOfId.get(webhookId);
    if (known !== undefined)
      for (let m = this.#first[slot]!; m !== NONE; m = this.#memberNext[m]!)
        if (this.#memberWebhook[m] === known) return;
    const member = this.#takeMember();
    this.#memberWebhook[member] = this.#intern(webhookId);
    this.#memberNext[member] = this.#first[slot]!;
    this.#first[slot] = member;
  }

  /** `webhookId` no longer watches `address` (nothing happens if it did not). */
  remove(address: string, webhookId: string): void {
    if (!parseAddress(address, this.#scratch)) {
      const set = this.#others.get(address);
      set?.delete(webhookId);
      if (set?.size === 0) this.#others.delete(address);
      return;
    }
    const id = this.#indexOfId.get(webhookId);
    const slot = this.#find(this.#scratch);
    if (id === undefined || slot === NONE) return;
    let previous = NONE;
    for (let m = this.#first[slot]!; m !== NONE; previous = m, m = this.#memberNext[m]!) {
      if (this.#memberWebhook[m] !== id) continue;
      if (previous === NONE) this.#first[slot] = this.#memberNext[m]!;
      else this.#memberNext[previous] = this.#memberNext[m]!;
      this.#releaseMember(m);
      this.#release(id);
      break;
    }
    if (this.#first[slot] === NONE) this.#deleteSlot(slot);
  }

  #find(key: Uint8Array): number {
    const mask = this.#capacity - 1;
    for (let s = hashAddress(key) & mask; this.#used[s] === 1; s = (s + 1) & mask)
      if (this.#keyAt(s, key)) return s;
    return NONE;
  }

  #keyAt(slot: number, key: Uint8Array): boolean {
    const base = slot * ADDRESS_BYTES;
    for (let i = 0; i < ADDRESS_BYTES; i++) if (this.#keys[base + i] !== key[i]) return false;
    return true;
  }

  /** Puts a key known to be absent in its first free slot, with no members yet. */
  #insertKey(key: Uint8Array): number {
    const mask = this.#capacity - 1;
    let s = hashAddress(key) & mask;
    while (this.#used[s] === 1) s = (s + 1) & mask;
    this.#used[s] = 1;
    this.#keys.set(key, s * ADDRESS_BYTES);
    this.#first[s] = NONE;
    this.#count++;
    return s;
  }

  /**
   * Empties a slot and shifts back the entries after it whose probe would otherwise cross the hole
   * (linear probing's deletion without tombstones, so lookups never slow down with removals).
   */
  #deleteSlot(slot: number): void {
    const mask = this.#capacity - 1;
    let hole = slot;
    this.#used[hole] = 0;
    this.#count--;
    for (let s = (hole + 1) & mask; this.#used[s] === 1; s = (s + 1) & mask) {
      const home = hashAddress(this.#keys.subarray(s * ADDRESS_BYTES, (s + 1) * ADDRESS_BYTES)) & mask;
      // The entry at `s` may move into the hole only if its home is not in (hole, s], cyclically.
      const stays = hole <= s ? hole < home && home <= s : hole < home || home <= s;
      if (stays) continue;
      this.#keys.copyWithin(hole * ADDRESS_BYTES, s * ADDRESS_BYTES, (s + 1) * ADDRESS_BYTES);
      this.#first[hole] = this.#first[s]!;
      this.#used[hole] = 1;
      this.#used[s] = 0;
      hole = s;
    }
  }

  #resize(capacity: number): void {
    const { used, keys, first } = { used: this.#used, keys: this.#keys, first: this.#first };
    const before = this.#capacity;
    this.#capacity = capacity;
    this.#used = new Uint8Array(capacity);
    this.#keys = new Uint8Array(capacity * ADDRESS_BYTES);
    this.#first = new Int32Array(capacity);
    this.#count = 0;
    for (let s = 0; s < before; s++) {
      if (used[s] !== 1) continue;
      const slot = this.#insertKey(keys.subarray(s * ADDRESS_BYTES, (s + 1) * ADDRESS_BYTES));
      this.#first[slot] = first[s]!;
    }
  }

  #takeMember(): number {
    if (this.#freeMember === NONE) this.#growMembers(this.#memberWebhook.length * 2);
    const member = this.#freeMember;
    this.#freeMember = this.#memberNext[member]!;
    return member;
  }

  #releaseMember(member: number): void {
    this.#memberNext[member] = this.#freeMember;
    this.#freeMember = member;
  }

  #growMembers(length: number): void {
    const before = this.#memberWebhook.length;
    const webhook = new Int32Array(length);
    const next = new Int32Array(length);
    webhook.set(this.#memberWebhook);
    next.set(this.#memberNext);
    // The new members join the free list, lowest first.
    for (let m = length - 1; m >= before; m--) {
      next[m] = this.#freeMember;
      this.#freeMember = m;
    }
    this.#memberWebhook = webhook;
    this.#memberNext = next;
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
