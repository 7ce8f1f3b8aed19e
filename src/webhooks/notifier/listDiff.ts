import { ADDRESS_BYTES, compareKeys } from "../addressKeys.js";
import type { PackedAddressList } from "../store/packedAddressList.js";

/** Told each key that left or joined a list: `keys` holds it at byte offset `at`. */
export type OnKey = (keys: Uint8Array, at: number) => void;

/**
 * Walks two sorted lists side by side, once each, telling `removed` the keys only `before` has
 * and `added` the keys only `after` has; keys in both are not visited at all. Linear in the two
 * lengths, with no allocation per key.
 */
export const diffKeys = (
  before: PackedAddressList,
  after: PackedAddressList,
  removed: OnKey,
  added: OnKey,
): void => {
  let i = 0;
  let j = 0;
  while (i < before.count && j < after.count) {
    const order = compareKeys(before.keys, i * ADDRESS_BYTES, after.keys, j * ADDRESS_BYTES);
    if (order === 0) {
      i++;
      j++;
    } else if (order < 0) removed(before.keys, i++ * ADDRESS_BYTES);
    else added(after.keys, j++ * ADDRESS_BYTES);
  }
  for (; i < before.count; i++) removed(before.keys, i * ADDRESS_BYTES);
  for (; j < after.count; j++) added(after.keys, j * ADDRESS_BYTES);
};

/** The entries that are not EVM addresses, the same way (few or none: plain sets). */
export const diffOthers = (
  before: PackedAddressList,
  after: PackedAddressList,
  removed: (entry: string) => void,
  added: (entry: string) => void,
): void => {
  const next = new Set(after.others);
  const previous = new Set(before.others);
  for (const entry of before.others) if (!next.has(entry)) removed(entry);
  for (const entry of after.others) if (!previous.has(entry)) added(entry);
};
