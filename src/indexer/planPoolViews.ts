import { type ChainConfig, type ProtocolConfig, protocolsOf } from "../chains/ChainsConfig.js";
import type { PoolCreated } from "../decoding/index.js";
import type { IndexedPool } from "./IndexRecords.js";
import { poolKey, tokenPoolKey } from "./indexKeys.js";

type WithoutOrigin<T> = T extends unknown ? Omit<T, "chain_id" | "tx_hash" | "log_index"> : never;

/**
 * A pool creation as the pool views need it: a `PoolCreated` decoded from a log, or the same facts
 * read another way (a V2 pair listed by its factory's `allPairs`), which has no log to point at.
 */
export type PoolSighting = WithoutOrigin<PoolCreated>;

/** The chain's registry deployments by address, to look each creation's emitter up in. */
export const registryByAddress = (chain: ChainConfig): ReadonlyMap<string, ProtocolConfig> =>
  new Map(protocolsOf(chain).map((factory) => [factory.address, factory]));

/**
 * The pool record of a creation, when its emitter is a registry deployment of the same design
 * (a look-alike factory, or a factory of another design emitting a same-shaped event, is not
 * one), named by the deployment's `protocol`. The indexer builds it from each block's events and
 * the registry backfill from the factories' past events: both must write the same record.
 */
export const registryPool = (
  registry: ReadonlyMap<string, ProtocolConfig>,
  created: PoolSighting,
): IndexedPool | undefined => {
  const factory = registry.get(created.factory);
  if (factory === undefined || factory.kind !== created.amm) return undefined;
  return {
    pool: created.pool,
    kind: created.amm,
    protocol: factory.protocol,
    factory: created.factory,
    token0: created.token0,
    token1: created.token1,
    fee: created.amm === "v2" || created.amm === "algebra" ? null : created.fee,
    tick_spacing: created.amm === "v2" || created.amm === "algebra" ? null : created.tick_spacing,
    hooks: created.amm === "v4" ? created.hooks : null,
    created_block: created.block_number,
  };
};

/** The keys a pool takes in the views, in the order the indexer writes them: the pool, then each token's entry. */
export const poolViewWrites = (
  chainId: number,
  pool: IndexedPool,
): ReadonlyArray<readonly [string, unknown]> => [
  [poolKey(chainId, pool.pool), pool],
  [tokenPoolKey(chainId, pool.token0, pool.pool), pool.pool],
  [tokenPoolKey(chainId, pool.token1, pool.pool), pool.pool],
];
