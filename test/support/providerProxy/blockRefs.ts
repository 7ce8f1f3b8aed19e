/** Block parameters as clients send them: tags, hex numbers, hashes and EIP-1898 objects. */

export type BlockTag = "latest" | "pending" | "safe" | "finalized" | "earliest";

export type BlockRef =
  | { readonly kind: "tag"; readonly tag: BlockTag }
  | { readonly kind: "number"; readonly number: number }
  | { readonly kind: "hash"; readonly hash: string }
  /** Anything else: left for upstream to refuse in its own words. */
  | { readonly kind: "other" };

const TAGS: ReadonlySet<string> = new Set(["latest", "pending", "safe", "finalized", "earliest"]);
const HASH = /^0x[0-9a-fA-F]{64}$/;
const QUANTITY = /^0x[0-9a-fA-F]{1,16}$/;

/** Reads a block parameter; `undefined` (absent) means "latest", as nodes take it. */
export const parseBlockRef = (value: unknown): BlockRef => {
  if (value === undefined || value === null) return { kind: "tag", tag: "latest" };
  if (typeof value === "string") {
    if (TAGS.has(value)) return { kind: "tag", tag: value as BlockTag };
    if (HASH.test(value)) return { kind: "hash", hash: value };
    if (QUANTITY.test(value)) return { kind: "number", number: Number.parseInt(value, 16) };
    return { kind: "other" };
  }
  if (typeof value === "object" && !Array.isArray(value)) {
    const { blockNumber, blockHash } = value as { blockNumber?: unknown; blockHash?: unknown };
    if (typeof blockHash === "string" && HASH.test(blockHash)) return { kind: "hash", hash: blockHash };
    if (blockNumber !== undefined) return parseBlockRef(blockNumber);
  }
  return { kind: "other" };
};

/** Where the block parameter sits in the params of the methods that read state at a block. */
export const STATE_BLOCK_PARAM: ReadonlyMap<string, number> = new Map([
  ["eth_call", 1],
  ["eth_getBalance", 1],
  ["eth_getCode", 1],
  ["eth_getStorageAt", 2],
  ["eth_getTransactionCount", 1],
]);
