import { type ChainConfig, type ProtocolConfig, protocolsOf } from "../chains/ChainsConfig.js";
import type { RawCall, RawResult } from "../chains/multicall3.js";
import { addressWord, intWord, rawCall, uintWord } from "../chains/rawCalls.js";
import type { IndexedPool } from "../indexer/IndexRecords.js";
import { hopsOf } from "./planPricing.js";
import { V3_FEE_TIERS, V4_STANDARD_KEYS, type V4PoolKey, v4PoolId, ZERO_ADDRESS } from "./standardPools.js";

/**
 * Finding a token's pools by asking the registry's factories, as routers do, instead of from the
 * creation events the index saw: `getPair` (v2), `getPool` for each standard fee tier (v3),
 * `poolByPair` (algebra), and StateView `getSlot0` of each standard V4 key (a pool is initialised
 * when its price is not zero). Every call goes to a configured contract, never to a token, so a
 * hostile token cannot burn the batch's gas; a call that reverts or answers short means "no pool".
 */

/** A pool found by a lookup: an index record but for the block it was created at, which a lookup cannot know. */
export type FoundPool = Omit<IndexedPool, "created_block">;

export interface LookupPlan {
  /** The pairs asked about, each as [token0, token1] (sorted). */
  readonly pairs: ReadonlyArray<readonly [string, string]>;
  readonly calls: ReadonlyArray<RawCall>;
  /** The pools the answers to `calls` name (in the same order), each once. */
  readonly decode: (results: ReadonlyArray<RawResult>) => ReadonlyArray<FoundPool>;
}

const isZero = (address: string | undefined) => address === undefined || /^0x0*$/.test(address);

/**
 * The tokens a lookup covers for `tokens`: each as pricing sees it (the native currency, the zero
 * address, as the wrapped native token), plus the hops and stablecoins, whose pools `planPricing`
 * reads for every request.
 */
export const lookupTokens = (chain: ChainConfig, tokens: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out = new Set<string>();
  for (const raw of [...tokens, ...hopsOf(chain), ...chain.stablecoins]) {
    const token = raw.toLowerCase();
    if (isZero(token)) {
      if (chain.wrapped_native !== undefined) out.add(chain.wrapped_native);
    } else out.add(token);
  }
  return [...out];
};

/**
 * What a token is paired with in a lookup, as `planPricing` routes prices: a hop (wrapped native,
 * quote tokens) against the stablecoins; any other token (stablecoins included) against the
 * stablecoins and the hops.
 */
export const counterpartsOf = (chain: ChainConfig, token: string): ReadonlyArray<string> => {
  const hops = hopsOf(chain);
  const others = hops.includes(token) ? chain.stablecoins : [...new Set([...chain.stablecoins, ...hops])];
  return others.filter((other) => other !== token);
};

/** The unordered pairs to ask about for `tokens` (already `lookupTokens`), each once, sorted within. */
export const lookupPairs = (
  chain: ChainConfig,
  tokens: ReadonlyArray<string>,
): ReadonlyArray<readonly [string, string]> => {
  const pairs = new Map<string, readonly [string, string]>();
  for (const token of tokens)
    for (const other of counterpartsOf(chain, token)) {
      const pair = token < other ? ([token, other] as const) : ([other, token] as const);
      pairs.set(`${pair[0]}|${pair[1]}`, pair);
    }
  return [...pairs.values()];
};

/** The V4 keys of a pair: the standard ones, and again with native ETH where wrapped native is one side. */
export const v4Keys = (chain: ChainConfig, [a, b]: readonly [string, string]): ReadonlyArray<V4PoolKey> => {
  const sides: Array<readonly [string, string]> = [[a, b]];
  // Native ETH pairs with what wrapped native pairs with; as the zero address it is always currency0.
  if (chain.wrapped_native === a) sides.push([ZERO_ADDRESS, b]);
  else if (chain.wrapped_native === b) sides.push([ZERO_ADDRESS, a]);
  return sides.flatMap(([currency0, currency1]) =>
    V4_STANDARD_KEYS.map(({ fee, tickSpacing }) => ({
      currency0,
      currency1,
      fee,
      tickSpacing,
      hooks: ZERO_ADDRESS,
    })),
  );
};

/** Decodes one answer into a pool, given the tick spacing each V3 factory enables for a fee. */
type Reader = (
  result: RawResult | undefined,
  spacing: (factory: string, fee: number) => number,
) => FoundPool | undefined;

const pooledAt = (result: RawResult | undefined): string | undefined => {
  const address = addressWord(result, 0);
  return address === undefined || isZero(address) ? undefined : address;
};

/**
 * The calls that look up every pair of `tokens` (as `lookupTokens` gives them) in every pool
 * factory of the chain's registry, for one aggregate3, and their decoder. Token order in a found
 * pool is address order, as every factory of these designs sorts the pair it creates (their
 * CREATE2 salts and pool math depend on it); V3 tick spacings come from the factory itself.
 */
export const planFactoryLookups = (chain: ChainConfig, tokens: ReadonlyArray<string>): LookupPlan => {
  const pairs = lookupPairs(chain, tokens);
  const protocols = protocolsOf(chain);
  const byKind = (kind: ProtocolConfig["kind"]) => protocols.filter((p) => p.kind === kind);
  const v2s = byKind("v2");
  const v3s = byKind("v3");
  const algebras = byKind("algebra");
  // V4 pools are looked up, and read by pricing, through the pool manager's StateView.
  const v4s = byKind("v4").filter((p) => p.state_view !== undefined);

  const calls: Array<RawCall> = [];
  const readers: Array<Reader> = [];

  // First the tick spacing each V3 factory enables per tier: a few calls per chain, not per pair.
  const spacingAt = new Map<string, number>();
  for (const factory of v3s)
    for (const { fee } of V3_FEE_TIERS) {
      spacingAt.set(`${factory.address}|${fee}`, calls.length);
      calls.push(rawCall(factory.address, "feeAmountTickSpacing(uint24)", fee));
      readers.push(() => undefined);
    }

  const add = (call: RawCall, reader: Reader) => {
    calls.push(call);
    readers.push(reader);
  };
  for (const [token0, token1] of pairs) {
    const common = { token0, token1 };
    for (const factory of v2s)
      add(rawCall(factory.address, "getPair(address,address)", token0, token1), (result) => {
        const pool = pooledAt(result);
        return pool === undefined
          ? undefined
          : {
              ...common,
              pool,
              kind: "v2",
              protocol: factory.protocol,
              factory: factory.address,
              fee: null,
              tick_spacing: null,
              hooks: null,
            };
      });
    for (const factory of v3s)
      for (const { fee } of V3_FEE_TIERS)
        add(
          rawCall(factory.address, "getPool(address,address,uint24)", token0, token1, fee),
          (result, spacing) => {
            const pool = pooledAt(result);
            return pool === undefined
              ? undefined
              : {
                  ...common,
                  pool,
                  kind: "v3",
                  protocol: factory.protocol,
                  factory: factory.address,
                  fee,
                  tick_spacing: spacing(factory.address, fee),
                  hooks: null,
                };
          },
        );
    for (const factory of algebras)
      add(rawCall(factory.address, "poolByPair(address,address)", token0, token1), (result) => {
        const pool = pooledAt(result);
        return pool === undefined
          ? undefined
          : {
              ...common,
              pool,
              kind: "algebra",
              protocol: factory.protocol,
              factory: factory.address,
              fee: null,
              tick_spacing: null,
              hooks: null,
            };
      });
    // Hashing the keys is most of a lookup's own time: each pair's are hashed once, for every manager.
    const keys =
      v4s.length === 0 ? [] : v4Keys(chain, [token0, token1]).map((key) => ({ key, id: v4PoolId(key) }));
    for (const manager of v4s)
      for (const { key, id } of keys) {
        add(rawCall(manager.state_view!, "getSlot0(bytes32)", id), (result) => {
          const sqrtPriceX96 = uintWord(result, 0);
          return sqrtPriceX96 === undefined || sqrtPriceX96 === 0n
            ? undefined
            : {
                pool: id,
                kind: "v4",
                protocol: manager.protocol,
                factory: manager.address,
                token0: key.currency0,
                token1: key.currency1,
                fee: key.fee,
                tick_spacing: key.tickSpacing,
                hooks: key.hooks,
              };
        });
      }
  }

  const decode = (results: ReadonlyArray<RawResult>): ReadonlyArray<FoundPool> => {
    const spacing = (factory: string, fee: number) => {
      const index = spacingAt.get(`${factory}|${fee}`);
      const answered = index === undefined ? undefined : intWord(results[index], 0, 24);
      if (answered !== undefined && answered > 0n) return Number(answered);
      return V3_FEE_TIERS.find((tier) => tier.fee === fee)!.tickSpacing;
    };
    const found = new Map<string, FoundPool>();
    readers.forEach((read, i) => {
      const pool = read(results[i], spacing);
      if (pool !== undefined && !found.has(pool.pool)) found.set(pool.pool, pool);
    });
    return [...found.values()];
  };

  return { pairs, calls, decode };
};
