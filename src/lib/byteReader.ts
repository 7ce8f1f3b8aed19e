/** Bytes that are not what a {@link ByteReader} was asked to read: cut short, or a value out of range. */
export class MalformedBytes extends Error {}

/**
 * Reads what a {@link ByteWriter} wrote, in the same order. Every read is bounds-checked and throws
 * {@link MalformedBytes} rather than reading past the end. {@link ByteReader.count} refuses a count
 * of more items than the bytes left could hold, or than its caller allows: hostile bytes then cost
 * a bounded number of items, not millions of tiny ones.
 */
export class ByteReader {
  #at = 0;

  constructor(private readonly buffer: Buffer) {}

  get done(): boolean {
    return this.#at === this.buffer.length;
  }

  byte(): number {
    if (this.#at >= this.buffer.length) throw new MalformedBytes("ends early");
    return this.buffer[this.#at++]!;
  }

  /** A byte that is 0 or 1. */
  flag(): boolean {
    const b = this.byte();
    if (b > 1) throw new MalformedBytes(`flag ${b}`);
    return b === 1;
  }

  uint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (!Number.isSafeInteger(value)) throw new MalformedBytes("integer out of range");
        return value;
      }
      scale *= 0x80;
    }
    throw new MalformedBytes("integer too long");
  }

  /**
   * A count of items that take at least `minBytes` each: never more than the bytes left hold, nor
   * more than `max`.
   */
  count(minBytes: number, max: number): number {
    const n = this.uint();
    if (n > max) throw new MalformedBytes(`count ${n} over the most allowed, ${max}`);
    if (n * minBytes > this.buffer.length - this.#at)
      throw new MalformedBytes(`count ${n} exceeds what is left`);
    return n;
  }

  #take(length: number): number {
    const start = this.#at;
    if (length > this.buffer.length - start) throw new MalformedBytes("ends early");
    this.#at += length;
    return start;
  }

  text(): string {
    const length = this.uint();
    const start = this.#take(length);
    return this.buffer.toString("utf8", start, start + length);
  }

  hex(): string {
    const header = this.uint();
    const length = Math.floor(header / 2);
    const start = this.#take(length);
    return header % 2 === 0
      ? `0x${this.buffer.toString("hex", start, start + length)}`
      : this.buffer.toString("utf8", start, start + length);
  }
}
