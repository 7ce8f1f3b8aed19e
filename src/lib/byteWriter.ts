const UPPER_CASE_HEX = /[A-F]/;

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
    if (
      digits >= 0 &&
      digits % 2 === 0 &&
      value.charCodeAt(0) === 48 &&
      value.charCodeAt(1) === 120 &&
      !UPPER_CASE_HEX.test(value)
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
}
