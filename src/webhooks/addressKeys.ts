/**
 * EVM addresses as 20-byte keys, read from text (a block's `0x…` strings) or straight from the
 * bytes of a stored list, so that holding millions of them costs 20 bytes each rather than a
 * string (about 60 bytes and an object for the garbage collector to follow).
 */

/** Bytes of an EVM address. */
export const ADDRESS_BYTES = 20;

/** Characters of an address as text: `0x` and 40 hex digits. */
export const ADDRESS_CHARS = 2 + 2 * ADDRESS_BYTES;

/** The value of one hex digit's character code, or -1. */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX[65 + i] = 10 + i;
  HEX[97 + i] = 10 + i;
}

/** The value of the hex digit with character code `code`, or -1. */
export const hexDigit = (code: number): number => HEX[code] ?? -1;

/** Writes `0x` + 40 hex digits (either case) into `out` at `at` as 20 bytes; false for anything else. */
export const parseAddress = (address: string, out: Uint8Array, at = 0): boolean => {
  if (address.length !== ADDRESS_CHARS || address.charCodeAt(0) !== 48) return false;
  const x = address.charCodeAt(1);
  if (x !== 120 && x !== 88) return false;
  for (let i = 0; i < ADDRESS_BYTES; i++) {
    const hi = hexDigit(address.charCodeAt(2 + 2 * i));
    const lo = hexDigit(address.charCodeAt(3 + 2 * i));
    if (hi < 0 || lo < 0) return false;
    out[at + i] = (hi << 4) | lo;
  }
  return true;
};

/**
 * Reads the `0x` + 40 hex digits that start at `from` in `text` (bytes of ASCII) into `out` at
 * `at`; false when they are not that.
 */
export const parseAddressBytes = (text: Uint8Array, from: number, out: Uint8Array, at: number): boolean => {
  if (from + ADDRESS_CHARS > text.length || text[from] !== 48) return false;
  const x = text[from + 1];
  if (x !== 120 && x !== 88) return false;
  for (let i = 0; i < ADDRESS_BYTES; i++) {
    const hi = hexDigit(text[from + 2 + 2 * i]!);
    const lo = hexDigit(text[from + 3 + 2 * i]!);
    if (hi < 0 || lo < 0) return false;
    out[at + i] = (hi << 4) | lo;
  }
  return true;
};

/**
 * Orders the key at `a`'s offset `i` against the one at `b`'s offset `j` (byte offsets): negative,
 * zero or positive. Byte order is the order of the lower-case `0x…` strings the store sorts by.
 */
export const compareKeys = (a: Uint8Array, i: number, b: Uint8Array, j: number): number => {
  for (let k = 0; k < ADDRESS_BYTES; k++) {
    const d = a[i + k]! - b[j + k]!;
    if (d !== 0) return d;
  }
  return 0;
};

const DIGITS = "0123456789abcdef";

/** The key at byte offset `at` of `keys` as a lower-case `0x…` address. */
export const addressAt = (keys: Uint8Array, at: number): string => {
  let text = "0x";
  for (let i = 0; i < ADDRESS_BYTES; i++) {
    const byte = keys[at + i]!;
    text += DIGITS[byte >> 4]! + DIGITS[byte & 15]!;
  }
  return text;
};
