import { cappedBalanceReads } from "../../balances/cappedBalanceReads.js";
import { decodeBalance } from "../../chains/balanceReads.js";
import type { ChainConfig } from "../../chains/ChainsConfig.js";
import { aggregate3, getEthBalanceCall, type RawCall } from "../../chains/multicall3.js";
import type { ChainRpc } from "../../chains/rpc/ChainRpc.js";
import type { IndexReader } from "../../indexer/IndexReader.js";
import type { TokenMetadata } from "../../indexer/IndexRecords.js";
import { readTokenMetadata } from "../../indexer/readTokenMetadata.js";
import { planPricing } from "../../pricing/planPricing.js";
import type { PoolLookup } from "../../pricing/poolLookup.js";
import type { PriceQuote } from "../../pricing/selectPrices.js";

/** A wallet's balance of one asset before and after a block, with the asset's metadata and price. */
export interface BalanceRead {
  readonly before: bigint;
  readonly after: bigint;
  readonly symbol: string | null;
  readonly name: string | null;
  readonly decimals: number | null;
  readonly price: PriceQuote | undefined;
}

/**
 * Reads `pairs` (`wallet|token`, token `native` or an ERC-20) at the block's
 * parent and at the block, each pinned by its hash: one Multicall3 aggregate3
 * per block (the tokens' balances each with a gas cap of its own: cappedBalanceReads.ts),
 * the second carrying the pool reads that price the tokens at the block.
 * Metadata comes from the index (read from the chain for tokens it has not met).
 */
export const readBalances = async (
  client: ChainRpc,
  index: IndexReader,
  chain: ChainConfig,
  pairs: ReadonlyArray<{ readonly wallet: string; readonly token: string }>,
  block: { readonly number: number; readonly hash: string; readonly parent_hash: string },
  /** Finds pools the index lacks (created before its history) by asking the factories. */
  pools?: PoolLookup,
): Promise<ReadonlyMap<string, BalanceRead>> => {
  const { number } = block;
  if (pairs.length === 0) return new Map();
  const tokens = [...new Set(pairs.map((p) => p.token).filter((t) => t !== "native"))];
  const priced = chain.wrapped_native === undefined ? tokens : [...tokens, chain.wrapped_native];
  await pools?.ensurePools(chain, priced, { number, hash: block.hash });
  const plan = await planPricing(index, chain, priced);
  // Native balances through Multicall3; every token's with a gas cap of its own, so a token that
  // burns gas (anyone can send a watched wallet one) cannot fail the block's read for every wallet.
  const natives = pairs.filter((p) => p.token === "native");
  const erc20s = pairs.filter((p) => p.token !== "native");
  const nativeCalls = natives.map((p) => getEthBalanceCall(p.wallet));
  const capped = await cappedBalanceReads(client, erc20s);
  /** One side's balances (before or after the block): native and ERC-20 calls, then `extra`. */
  const side = async (
    at: { readonly number: number; readonly hash: string },
    extra: ReadonlyArray<RawCall>,
  ) => {
    const results = await aggregate3(client, [...nativeCalls, ...capped.calls, ...extra], { block: at });
    const tokenStart = nativeCalls.length;
    const extraStart = tokenStart + capped.calls.length;
    const amounts = new Map<string, bigint>();
    natives.forEach((p, i) => {
      amounts.set(`${p.wallet}|native`, decodeBalance(results[i]) ?? 0n);
    });
    (await capped.amounts(results.slice(tokenStart, extraStart), at)).forEach((amount, i) => {
      amounts.set(`${erc20s[i]!.wallet}|${erc20s[i]!.token}`, amount);
    });
    return { amounts, extra: results.slice(extraStart) };
  };
  const [before, after] = await Promise.all([
    number > 0 ? side({ number: number - 1, hash: block.parent_hash }, []) : Promise.resolve(undefined),
    side({ number, hash: block.hash }, plan.calls),
  ]);
  const prices = plan.finish(after.extra);
  const indexed = await index.tokenMetadata(chain.chain_id, tokens);
  const missing = tokens.filter((_, i) => indexed[i] === undefined);
  const fetched = await readTokenMetadata(client, missing);
  const metadata = new Map<string, TokenMetadata | undefined>();
  tokens.forEach((token, i) => {
    metadata.set(token, indexed[i] ?? fetched[missing.indexOf(token)]);
  });
  const out = new Map<string, BalanceRead>();
  for (const pair of pairs) {
    const isNative = pair.token === "native";
    const meta = metadata.get(pair.token);
    out.set(`${pair.wallet}|${pair.token}`, {
      before: before?.amounts.get(`${pair.wallet}|${pair.token}`) ?? 0n,
      after: after.amounts.get(`${pair.wallet}|${pair.token}`) ?? 0n,
      symbol: isNative ? chain.native.symbol : (meta?.symbol ?? null),
      name: isNative ? chain.native.name : (meta?.name ?? null),
      decimals: isNative ? chain.native.decimals : (meta?.decimals ?? null),
      price: prices.get(isNative ? (chain.wrapped_native ?? "") : pair.token),
    });
  }
  return out;
};
