import { createKeccak } from "hash-wasm";

/**
 * Keccak-256 in WebAssembly (hash-wasm), one hasher for the process. A factory lookup hashes every
 * standard V4 pool key of every pair it asks about, a few thousand for a wallet's first answer, on
 * the thread that answers requests: viem's keccak256 (pure JavaScript, from hex) took about 40 µs a
 * key on this project's machines, this about 4 µs. Hashing is synchronous, so calls never interleave
 * on the shared hasher.
 */
const hasher = await createKeccak(256);

/** keccak256 of the bytes `hex` spells (0x and an even number of hex digits), as 0x and 64 lower-case hex digits. */
export const keccak256Hex = (hex: string): string => {
  hasher.init();
  hasher.update(Buffer.from(hex.slice(2), "hex"));
  return `0x${hasher.digest("hex")}`;
};
