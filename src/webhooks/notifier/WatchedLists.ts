import { ADDRESS_BYTES, addressAt } from "../addressKeys.js";
import { EMPTY_LIST, type PackedAddressList } from "../store/packedAddressList.js";
import { AddressTable } from "./AddressTable.js";
import { diffKeys, diffOthers } from "./listDiff.js";

/** How many addresses one applied list change added to and removed from its webhook. */
export interface ListChange {
  readonly added: number;
  readonly removed: number;
}

/**
 * Every webhook's address list as last applied, and the table of watched addresses they add up
 * to. A new list is applied as the difference from the one held: addresses in both are never
 * touched, so a block matched while a list of 100,000 grows or shrinks still finds every address
 * that stays. Each list is kept packed (20 bytes an address, no string), which is what makes that
 * difference computable without keeping the lists' text.
 */
export class WatchedLists {
  readonly #table: AddressTable;
  readonly #lists = new Map<string, { readonly revision: number; readonly list: PackedAddressList }>();
  /** The addresses of a held list as strings, once asked for (addressesOf). */
  readonly #strings = new WeakMap<PackedAddressList, ReadonlyArray<string>>();

  constructor(table: AddressTable = new AddressTable()) {
    this.#table = table;
  }

  /**
   * Applies webhook `id`'s list as stored at `revision`; `undefined` for a deleted list, which
   * stops every match of the webhook. Entries of one key come in revision order, and a new watch
   * starts again from each key's last one: an entry at or below the revision held is one already
   * applied, and changes nothing (answered `undefined`).
   */
  apply(id: string, revision: number, list: PackedAddressList | undefined): ListChange | undefined {
    if (this.holds(id, revision)) return undefined;
    const held = this.#lists.get(id);
    const before = held?.list ?? EMPTY_LIST;
    const after = list ?? EMPTY_LIST;
    let added = 0;
    let removed = 0;
    diffKeys(
      before,
      after,
      (keys, at) => {
        this.#table.removeKey(keys, at, id);
        removed++;
      },
      (keys, at) => {
        this.#table.addKey(keys, at, id);
        added++;
      },
    );
    diffOthers(
      before,
      after,
      (entry) => {
        this.#table.remove(entry, id);
        removed++;
      },
      (entry) => {
        this.#table.add(entry, id);
        added++;
      },
    );
    if (list === undefined) this.#lists.delete(id);
    else this.#lists.set(id, { revision, list });
    return { added, removed };
  }

  /** Whether webhook `id`'s list is held at `revision` or later: an entry at `revision` would change nothing. */
  holds(id: string, revision: number): boolean {
    return (this.#lists.get(id)?.revision ?? 0) >= revision;
  }

  /** Webhook ids watching `address` (one table lookup). */
  webhooksFor(address: string): ReadonlyArray<string> {
    return this.#table.webhooksFor(address);
  }

  /** The ids of the webhooks whose lists are held. */
  webhookIds(): IterableIterator<string> {
    return this.#lists.keys();
  }

  /**
   * Webhook `id`'s addresses as lower-case strings, for the few webhooks evaluated whole
   * (`positions`): made once per list applied, not on every call.
   */
  addressesOf(id: string): ReadonlyArray<string> {
    const held = this.#lists.get(id);
    if (held === undefined) return [];
    let strings = this.#strings.get(held.list);
    if (strings === undefined) {
      const { keys, count, others } = held.list;
      strings = [...Array.from({ length: count }, (_, i) => addressAt(keys, i * ADDRESS_BYTES)), ...others];
      this.#strings.set(held.list, strings);
    }
    return strings;
  }

  /** How many addresses have at least one webhook. */
  get size(): number {
    return this.#table.size;
  }

  /** How many webhooks have a list held. */
  get webhooks(): number {
    return this.#lists.size;
  }
}
