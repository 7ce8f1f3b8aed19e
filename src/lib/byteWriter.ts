/**
 * Up to this many characters, hex and text are written by a loop here rather than by
 * `Buffer.write`: a block's hashes, addresses, topics and amounts are this short, and for them the
 * call into Buffer's native writer cost more than the copy (a Base block's bytes built about 1.5 times faster).
 */
const SHORT = 130;

/** Each character code's value as a lower-case hex digit; NOT_DIGIT for any other (upper case too). */
const NOT_DIGIT = 16;
const DIGIT_VALUES = (() => {
  const values = new Uint8Array(128).fill(NOT_DIGIT);
  for (let d = 0; d < 10; d++) values[48 + d] = d;
  for (let d = 0; d < 6; d++) values[97 + d] = 10 + d;
  return values;
})();

/** Whether UTF-8 holds `value` as it is: no lone UTF-16 surrogate (ES2024's `isWellFormed`, in Node 20). */
const isWellFormed = (value: string): boolean =>
  (value as string & { isWellFormed: () => boolean }).isWellFormed();

/**
 * Appends to a growing buffer: unsigned LEB128 integers (up to 2^53), hex strings as their bytes,
 * and text. Hex is written as bytes only when that reads back to the very same string (`0x`,
 * lower case, an even number of digits); anything else is kept as text, so a message never
 * changes on its way through (see {@link ByteReader.hex}).
 */
export class ByteWriter {
  #buffer: Buffer;
  #at = 0;

  constructor(initialBytes = 64 * 1024) {
    this.#buffer = Buffer.allocUnsafe(initialBytes);
  }

  /** How many bytes are written so far. */
  get length(): number {
    return this.#at;
  }

  /** A copy of the bytes written so far. */
  bytes(): Buffer {
    return Buffer.from(this.#buffer.subarray(0, this.#at));
  }

  /** Starts over, keeping the buffer: a writer used for one message after another allocates once. */
  reset(): this {
    this.#at = 0;
    return this;
  }

  #room(bytes: number): void {
    if (this.#at + bytes <= this.#buffer.length) return;
    let size = this.#buffer.length * 2;
    while (size < this.#at + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.#buffer.copy(grown, 0, 0, this.#at);
    this.#buffer = grown;
  }

  byte(value: number): void {
    this.#room(1);
    this.#buffer[this.#at++] = value;
  }

  /** A non-negative safe integer; throws on anything else, which the format cannot hold. */
  uint(value: number): void {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new RangeError(`not a non-negative integer: ${value}`);
    this.#room(8);
    let rest = value;
    while (rest >= 0x80) {
      this.#buffer[this.#at++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.#buffer[this.#at++] = rest;
  }

  /**
   * Text: its UTF-8 length, then its bytes. Text UTF-8 cannot hold as it is (a lone UTF-16
   * surrogate, which JSON keeps) throws: it would read back changed.
   */
  text(value: string): void {
    if (value.length <= SHORT && this.#shortAscii(value)) return;
    if (!isWellFormed(value)) throw new RangeError("text with a lone surrogate");
    const length = Buffer.byteLength(value, "utf8");
    this.uint(length);
    this.#room(length);
    this.#at += this.#buffer.write(value, this.#at, length, "utf8");
  }

  /**
   * A hex string: a header `2n` and its n bytes, or, when the string is not lower-case `0x` hex
   * of whole bytes, a header `2n + 1` and its n bytes of UTF-8 text.
   */
  hex(value: string): void {
    const digits = value.length - 2;
    // Upper case would be read as hex but come back lower case, so such a string is kept as text.
    const hexLike =
      digits >= 0 && digits % 2 === 0 && value.charCodeAt(0) === 48 && value.charCodeAt(1) === 120;
    if (hexLike && digits <= SHORT && this.#shortHex(value)) return;
    // V8 answers toLowerCase of a string with no upper case by a scan several times faster than
    // /[A-F]/. Only ASCII may go on to hexWrite, which reads a character from U+0100 up by its low
    // byte ("\u4e30" as "0"): UTF-8 takes a byte a character only when all are ASCII.
    if (
      hexLike &&
      digits > SHORT &&
      value.toLowerCase() === value &&
      Buffer.byteLength(value, "utf8") === value.length
    ) {
      const start = this.#at;
      const length = digits / 2;
      this.uint(length * 2);
      this.#room(length);
      // hexWrite stops at the first character that is not a hex digit: then it is kept as text.
      const written = this.#buffer.write(value.slice(2), this.#at, length, "hex");
      if (written === length) {
        this.#at += length;
        return;
      }
      this.#at = start;
    }
    if (!isWellFormed(value)) throw new RangeError("hex with a lone surrogate");
    const length = Buffer.byteLength(value, "utf8");
    this.uint(length * 2 + 1);
    this.#room(length);
    this.#at += this.#buffer.write(value, this.#at, length, "utf8");
  }

  /**
   * `0x` hex (checked by the caller) of at most SHORT digits written as its bytes, as {@link hex}
   * writes it; false, with nothing written, when a character is not a lower-case hex digit.
   */
  #shortHex(value: string): boolean {
    const start = this.#at;
    const length = (value.length - 2) / 2;
    this.uint(length * 2);
    this.#room(length);
    const buffer = this.#buffer;
    let at = this.#at;
    for (let i = 2; i < value.length; i += 2) {
      const high = value.charCodeAt(i);
      const low = value.charCodeAt(i + 1);
      const highDigit = DIGIT_VALUES[high & 0x7f]!;
      const lowDigit = DIGIT_VALUES[low & 0x7f]!;
      // Digits are 0-15, so only NOT_DIGIT (16) sets that bit; a code from 128 up is no digit either.
      if (((highDigit | lowDigit) & NOT_DIGIT) !== 0 || (high | low) >= 128) {
        this.#at = start;
        return false;
      }
      buffer[at++] = (highDigit << 4) | lowDigit;
    }
    this.#at = at;
    return true;
  }

  /** Text of at most SHORT characters, all ASCII, written as {@link text} writes it; false, with nothing written, otherwise. */
  #shortAscii(value: string): boolean {
    const start = this.#at;
    this.uint(value.length);
    this.#room(value.length);
    const buffer = this.#buffer;
    let at = this.#at;
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code >= 128) {
        this.#at = start;
        return false;
      }
      buffer[at++] = code;
    }
    this.#at = at;
    return true;
  }
}
