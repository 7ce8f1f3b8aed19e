import { createKeccak } from "hash-wasm";

/**
 * Keccak-256 in WebAssembly (hash-wasm), one hasher for the process. A factory lookup hashes every
 * standard V4 pool key of every pair it asks about, over 600 for a 30-token slice on mainnet's
 * registry, on the thread that answers requests: viem's keccak256 (pure JavaScript, from hex) took
 * about 50 µs a key on this project's machines, this about 5 µs. Hashing is synchronous, so calls
 * never interleave on the shared hasher.
 */
const hasher = await createKeccak(256);

/**
 * keccak256 of the bytes `hex` spells (0x and an even number of hex digits), as 0x and 64 lower-case
 * hex digits. Throws on anything else: Buffer's hex decoding would silently drop an odd digit or
 * stop at the first character that is not one, and hash other bytes.
 */
export const keccak256Hex = (hex: string): string => {
  const bytes = Buffer.from(hex.slice(2), "hex");
  if (!hex.startsWith("0x") || bytes.length * 2 !== hex.length - 2)
    throw new Error(`keccak256Hex: not 0x-prefixed hex of whole bytes: ${hex.slice(0, 24)}`);
  hasher.init();
  hasher.update(bytes);
  return `0x${hasher.digest("hex")}`;
};
