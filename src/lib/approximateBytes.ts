/**
 * Header of a heap object (map pointer, properties, elements, length, and the
 * slack V8 leaves in literals), bytes. The constants are set so that the
 * balances and index records come out at 55-85% of the heap they really take.
 */
const OBJECT = 48;
/** One pointer-sized slot holding a property or element. */
const SLOT = 8;
/** Nested deeper than this is not walked (cache values are shallow records; this only stops cycles). */
const MAX_DEPTH = 12;

/**
 * A rough figure of the heap bytes `value` holds, for caches that budget memory:
 * strings by length, numbers and booleans as slots, arrays and plain objects by
 * their slots plus what they hold, byte arrays by length. It does not know V8's
 * exact layout (shared strings, hidden classes), so it is an estimate within a
 * small factor (typically below the real figure), good enough to keep a cache of records of very different sizes
 * (a wallet with 3 tokens and one with 1,200) inside a budget. Objects it cannot
 * look into (promises, functions) count as one object.
 */
export const approximateBytes = (value: unknown, depth = 0): number => {
  switch (typeof value) {
    case "string":
      return 32 + value.length;
    case "number":
      // Small integers live in the slot itself; other numbers are boxed.
      return Number.isInteger(value) && Math.abs(value) < 2 ** 30 ? 0 : 16;
    case "boolean":
    case "undefined":
      return 0;
    case "bigint":
      return 16 + SLOT * Math.ceil(value.toString(16).length / 16);
    case "object": {
      if (value === null) return 0;
      if (depth >= MAX_DEPTH) return OBJECT;
      if (ArrayBuffer.isView(value)) return OBJECT * 2 + value.byteLength;
      if (Array.isArray(value)) {
        let bytes = OBJECT + SLOT * value.length;
        for (const item of value) bytes += approximateBytes(item, depth + 1);
        return bytes;
      }
      if (value instanceof Map || value instanceof Set) {
        let bytes = OBJECT * 2;
        for (const [k, v] of value.entries())
          bytes += 3 * SLOT + approximateBytes(k, depth + 1) + approximateBytes(v, depth + 1);
        return bytes;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return OBJECT;
      let bytes = OBJECT;
      for (const key in value)
        bytes += SLOT + approximateBytes((value as Record<string, unknown>)[key], depth + 1);
      return bytes;
    }
    default:
      return OBJECT;
  }
};
