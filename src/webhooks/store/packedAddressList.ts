import {
  ADDRESS_BYTES,
  ADDRESS_CHARS,
  compareKeys,
  parseAddress,
  parseAddressBytes,
} from "../addressKeys.js";

/**
 * A stored address list (`addresses.<id>`, see kvKeys.ts) as 20-byte keys: sorted, without
 * repeats, and without a string per address, so a reader holding many lists (the notifier's
 * address book) keeps 20 bytes an address, and one that only counts them makes no garbage.
 */
export interface PackedAddressList {
  /** `count` keys of ADDRESS_BYTES each, in ascending byte order. */
  readonly keys: Uint8Array;
  readonly count: number;
  /** Entries that are not EVM addresses (the API writes none), as given, without repeats. */
  readonly others: ReadonlyArray<string>;
}

export const EMPTY_LIST: PackedAddressList = { keys: new Uint8Array(0), count: 0, others: [] };

/** What encodeList (addressLists.ts) writes around the addresses. */
const HEAD = new TextEncoder().encode('{"addresses":[');
const TAIL = new TextEncoder().encode("]}");
const QUOTE = 34;
const COMMA = 44;

/** Whether `text` holds `part` at `at`. */
const holds = (text: Uint8Array, part: Uint8Array, at: number) => {
  if (at + part.length > text.length) return false;
  for (let i = 0; i < part.length; i++) if (text[at + i] !== part[i]) return false;
  return true;
};

/** Keys in ascending order without repeats (lists not written by this service may be neither). */
const sortedUnique = (keys: Uint8Array, count: number): PackedAddressList => {
  let ordered = true;
  for (let i = 1; i < count && ordered; i++)
    ordered = compareKeys(keys, (i - 1) * ADDRESS_BYTES, keys, i * ADDRESS_BYTES) < 0;
  if (ordered) return { keys: keys.subarray(0, count * ADDRESS_BYTES), count, others: [] };
  const order = Array.from({ length: count }, (_, i) => i * ADDRESS_BYTES).sort((a, b) =>
    compareKeys(keys, a, keys, b),
  );
  const out = new Uint8Array(count * ADDRESS_BYTES);
  let kept = 0;
  for (const at of order) {
    if (kept > 0 && compareKeys(out, (kept - 1) * ADDRESS_BYTES, keys, at) === 0) continue;
    out.set(keys.subarray(at, at + ADDRESS_BYTES), kept * ADDRESS_BYTES);
    kept++;
  }
  return { keys: out.subarray(0, kept * ADDRESS_BYTES), count: kept, others: [] };
};

/**
 * The list exactly as encodeList writes it (`{"addresses":["0x…","0x…"]}`, no spaces), read
 * without making a string; `undefined` when the text is anything else.
 */
const packWritten = (text: Uint8Array): PackedAddressList | undefined => {
  if (!holds(text, HEAD, 0)) return undefined;
  const end = text.length - TAIL.length;
  if (end < HEAD.length || !holds(text, TAIL, end)) return undefined;
  if (end === HEAD.length) return EMPTY_LIST;
  // Each entry is a quoted address and a comma, but the last.
  const entry = ADDRESS_CHARS + 3;
  const span = end - HEAD.length + 1;
  if (span % entry !== 0) return undefined;
  const count = span / entry;
  const keys = new Uint8Array(count * ADDRESS_BYTES);
  for (let i = 0, at = HEAD.length; i < count; i++, at += entry) {
    if (text[at] !== QUOTE || text[at + ADDRESS_CHARS + 1] !== QUOTE) return undefined;
    if (i < count - 1 && text[at + ADDRESS_CHARS + 2] !== COMMA) return undefined;
    if (!parseAddressBytes(text, at + 1, keys, i * ADDRESS_BYTES)) return undefined;
  }
  return sortedUnique(keys, count);
};

/** Any other JSON of the same shape (spaces, odd entries): parsed, each address then packed. */
const packParsed = (text: Uint8Array): PackedAddressList | undefined => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(text));
  } catch {
    return undefined;
  }
  const addresses = (parsed as { addresses?: unknown } | null)?.addresses;
  if (!Array.isArray(addresses) || !addresses.every((a) => typeof a === "string")) return undefined;
  const keys = new Uint8Array(addresses.length * ADDRESS_BYTES);
  const others = new Set<string>();
  let count = 0;
  for (const address of addresses as ReadonlyArray<string>)
    if (parseAddress(address, keys, count * ADDRESS_BYTES)) count++;
    else others.add(address);
  return { ...sortedUnique(keys, count), others: [...others] };
};

/**
 * A stored list's value as keys, or `undefined` when it is not a list at all. What the store
 * writes is read byte by byte (a 100,000-address list, 4.5 MB, in a few milliseconds); anything
 * else of the same JSON shape through JSON.parse.
 */
export const packAddressList = (value: Uint8Array): PackedAddressList | undefined =>
  packWritten(value) ?? packParsed(value);
