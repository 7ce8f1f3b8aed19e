import type { Db } from "../storage/Level.js";
import type { IndexCheckpoint } from "./applyBlock.js";
import type { IndexedPool, TokenMetadata, TouchedToken } from "./IndexRecords.js";
import {
  blockTimeKey,
  indexCheckpointKey,
  poolKey,
  timeBlockBound,
  timeBlockPrefix,
  tokenMetadataKey,
  tokenPoolPrefix,
  walletTokenPrefix,
} from "./indexKeys.js";

export interface WalletToken extends TouchedToken {
  readonly chain_id: number;
  readonly token: string;
}

/** Read side of the indexer's views, for the services that answer requests. */
export const makeIndexReader = (db: Db) => ({
  /** Every (chain, token) the wallet has touched, ascending by chain then token. */
  touchedTokens: async (wallet: string): Promise<ReadonlyArray<WalletToken>> => {
    const prefix = walletTokenPrefix(wallet);
    const out: Array<WalletToken> = [];
    for await (const [key, value] of db.iterator({ gte: prefix, lt: `${prefix}~` })) {
      const [chain, token] = (key as string).slice(prefix.length).split("!");
      out.push({ ...(value as TouchedToken), chain_id: Number(chain), token: token! });
    }
    return out;
  },

  tokenMetadata: async (
    chainId: number,
    tokens: ReadonlyArray<string>,
  ): Promise<ReadonlyArray<TokenMetadata | undefined>> =>
    (await db.getMany(tokens.map((token) => tokenMetadataKey(chainId, token)))) as ReadonlyArray<
      TokenMetadata | undefined
    >,

  /** Pools (of configured factories) that hold `token`. */
  poolsForToken: async (chainId: number, token: string): Promise<ReadonlyArray<IndexedPool>> => {
    const prefix = tokenPoolPrefix(chainId, token);
    const ids: Array<string> = [];
    for await (const value of db.values({ gte: prefix, lt: `${prefix}~` })) ids.push(value as string);
    const pools = await db.getMany(ids.map((id) => poolKey(chainId, id)));
    return pools.filter((pool): pool is IndexedPool => pool !== undefined);
  },

  /** The last block at or before `seconds` (unix), or undefined if none is indexed. */
  blockAtOrBefore: async (chainId: number, seconds: number): Promise<number | undefined> => {
    for await (const value of db.values({
      gte: timeBlockPrefix(chainId),
      lte: timeBlockBound(chainId, seconds),
      reverse: true,
      limit: 1,
    })) {
      return value as number;
    }
    return undefined;
  },

  blockTime: async (chainId: number, number: number): Promise<number | undefined> =>
    (await db.get(blockTimeKey(chainId, number))) as number | undefined,

  /** The last block applied for the chain. */
  checkpoint: async (chainId: number): Promise<IndexCheckpoint | undefined> =>
    (await db.get(indexCheckpointKey(chainId))) as IndexCheckpoint | undefined,
});

export type IndexReader = ReturnType<typeof makeIndexReader>;
