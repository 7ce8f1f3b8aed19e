import type { TokenMetadata } from "../../indexer/IndexRecords.js";
import { tokenMetadataKey } from "../../indexer/indexKeys.js";
import type { IndexReads } from "../../indexer/PendingWrites.js";
import type { Operation } from "../../storage/Level.js";

/** Tokens per metadata read: three calls each, well under a node's eth_call gas cap. */
const TOKENS_PER_READ = 300;

const ZERO = "0x0000000000000000000000000000000000000000";

/**
 * The `tm!` writes for the tokens of pools found without the indexer (pricing needs their
 * decimals): those the index lacks are read in batches (`readMetadata`, readTokenMetadata.ts for
 * the chain), as the indexer reads the tokens of a block's new pools. A token read without
 * decimals is not recorded, as the factory lookups do (poolLookup.ts): an answer of nulls may be a
 * failing node, and the indexer never reads a token again once it has a record.
 */
export const poolTokenMetadataOps = async (
  db: IndexReads,
  chainId: number,
  tokens: Iterable<string>,
  readMetadata: (tokens: ReadonlyArray<string>) => Promise<ReadonlyArray<TokenMetadata>>,
): Promise<ReadonlyArray<Operation>> => {
  const wanted = [...new Set(tokens)].filter((token) => token !== ZERO);
  if (wanted.length === 0) return [];
  const known = await db.getMany(wanted.map((token) => tokenMetadataKey(chainId, token)));
  const missing = wanted.filter((_, i) => known[i] === undefined);
  const ops: Array<Operation> = [];
  for (let i = 0; i < missing.length; i += TOKENS_PER_READ) {
    const batch = missing.slice(i, i + TOKENS_PER_READ);
    const read = await readMetadata(batch);
    batch.forEach((token, j) => {
      const metadata = read[j];
      if (metadata !== undefined && metadata.decimals !== null)
        ops.push({ type: "put", key: tokenMetadataKey(chainId, token), value: metadata });
    });
  }
  return ops;
};
