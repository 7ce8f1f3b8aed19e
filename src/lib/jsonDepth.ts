/**
 * Deepest nesting of JSON arrays and objects a request body may have. The deepest
 * body any endpoint takes nests 2 levels (an object holding an array of
 * addresses); 32 leaves room for any future shape while keeping every recursive
 * step after parsing (JSON.stringify on the way to a worker, schema decoding,
 * error messages) far from the stack limit.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether JSON text, as UTF-8 bytes, nests arrays and objects deeper than
 * `maxDepth`. One pass without recursion that skips string contents (escapes
 * included), so it is safe to run on hostile bytes before JSON.parse: V8 parses
 * 100,000 levels without complaint, but JSON.stringify and schema decoding of
 * the result overflow the stack. Multi-byte UTF-8 sequences never contain these
 * ASCII bytes, so scanning bytes is exact. It does not validate the JSON.
 */
export const exceedsJsonDepth = (bytes: Uint8Array, maxDepth: number): boolean => {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
};

/** The sentence both the gateway and the API workers answer a too-deep body with. */
export const tooDeepMessage = (maxDepth: number = MAX_JSON_DEPTH) =>
  `The request body nests JSON arrays and objects more than ${maxDepth} levels deep.`;
