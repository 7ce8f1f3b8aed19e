import { balanceOfCall, decodeBalance } from "../chains/balanceReads.js";
import type { ChainConfig } from "../chains/ChainsConfig.js";
import { aggregate3, getEthBalanceCall } from "../chains/multicall3.js";
import type { BlockRef } from "../chains/readEachChain.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { IndexReader } from "../indexer/IndexReader.js";
import { readTokenMetadata } from "../indexer/readTokenMetadata.js";
import { planPricing } from "../pricing/planPricing.js";
import type { PoolLookup } from "../pricing/poolLookup.js";
import type { ChainHoldings, Holding } from "./ChainHoldings.js";
import { cappedBalanceReads } from "./cappedBalanceReads.js";
import { classifyToken, standardProbeCalls } from "./tokenStandard.js";

export interface ReadHoldingsParameters {
  readonly chain: ChainConfig;
  readonly wallet: string;
  /** The block to read at, pinned by hash when known. */
  readonly block: BlockRef;
  /** Tokens to read: the wallet's touched tokens and the chain's well-known ones. */
  readonly tokens: ReadonlyArray<string>;
  /** Keep these entries even when the balance is zero (the single-token endpoint). */
  readonly keepZero?: ReadonlySet<string>;
  /** A token (one of `tokens`) to classify as ERC-20 or not, for the single-token endpoint. */
  readonly classify?: string;
  /** Finds pools the index lacks by asking the factories, before prices are planned. */
  readonly pools?: PoolLookup | undefined;
}

/**
 * A wallet's native and token balances and their prices on one chain, from ONE
 * eth_call: a Multicall3 aggregate3 at `block` carrying the native balance
 * (getEthBalance), the token balances (each with a gas cap of its own: cappedBalanceReads.ts),
 * every pool read that pricing needs, and the ERC-165 probes of the token to classify, if any.
 * The single-token route reads its token with a plain `balanceOf`, whose failure it needs to see
 * to classify the token.
 */
export const readChainHoldings = async (
  client: ChainRpc,
  index: IndexReader,
  params: ReadHoldingsParameters,
): Promise<ChainHoldings> => {
  const { chain, wallet } = params;
  const tokens = [...new Set(params.tokens)];
  const priced = chain.wrapped_native === undefined ? tokens : [...tokens, chain.wrapped_native];
  await params.pools?.ensurePools(chain, priced, params.block);
  const plan = await planPricing(index, chain, priced);
  const capped =
    params.classify === undefined
      ? await cappedBalanceReads(
          client,
          tokens.map((token) => ({ wallet, token })),
        )
      : undefined;
  const balanceCalls = capped?.calls ?? tokens.map((token) => balanceOfCall(token, wallet));
  const calls = [
    getEthBalanceCall(wallet),
    ...balanceCalls,
    ...plan.calls,
    ...(params.classify === undefined ? [] : standardProbeCalls(params.classify)),
  ];
  const results = await aggregate3(client, calls, { block: params.block });
  const pricingStart = 1 + balanceCalls.length;
  const balanceResults = results.slice(1, pricingStart);
  const amounts: ReadonlyArray<bigint | undefined> =
    capped === undefined
      ? balanceResults.map((result) => decodeBalance(result))
      : await capped.amounts(balanceResults, params.block);
  const prices = plan.finish(results.slice(pricingStart, pricingStart + plan.calls.length));
  const standard =
    params.classify === undefined
      ? undefined
      : classifyToken(
          tokens.includes(params.classify) ? results[1 + tokens.indexOf(params.classify)] : undefined,
          results.slice(pricingStart + plan.calls.length),
        );

  const keepZero = params.keepZero ?? new Set<string>();
  const holdings: Array<Holding> = [];
  const native = decodeBalance(results[0]) ?? 0n;
  if (native > 0n || keepZero.has("native")) {
    holdings.push({
      address: "native",
      amount: native,
      symbol: chain.native.symbol,
      name: chain.native.name,
      decimals: chain.native.decimals,
      price: chain.wrapped_native === undefined ? undefined : prices.get(chain.wrapped_native),
    });
  }
  const held = tokens
    .map((token, i) => ({ token, amount: amounts[i] }))
    .filter(
      (t): t is { token: string; amount: bigint } =>
        t.amount !== undefined && (t.amount > 0n || keepZero.has(t.token)),
    )
    // A contract classified as something else is no ERC-20 holding (and needs no metadata read).
    .filter((t) => t.token !== params.classify || standard === "erc20");
  const indexed = await index.tokenMetadata(
    chain.chain_id,
    held.map((t) => t.token),
  );
  // A well-known token the index has not met yet: read its metadata now (rare, one more call).
  const missing = held.filter((_, i) => indexed[i] === undefined).map((t) => t.token);
  const fetched = new Map((await readTokenMetadata(client, missing)).map((meta, i) => [missing[i]!, meta]));
  const metadata = held.map((t, i) => indexed[i] ?? fetched.get(t.token));
  held.forEach(({ token, amount }, i) => {
    const meta = metadata[i];
    holdings.push({
      address: token,
      amount,
      symbol: meta?.symbol ?? null,
      name: meta?.name ?? null,
      decimals: meta?.decimals ?? null,
      price: prices.get(token),
    });
  });
  return {
    chainId: chain.chain_id,
    block: params.block.number,
    holdings,
    ...(standard === undefined ? {} : { classified: standard }),
  };
};
