import { NATIVE_CURRENCY } from "../chains/balanceReads.js";
import { type ChainConfig, protocolsOf } from "../chains/ChainsConfig.js";
import { vaultLensCode } from "../chains/lens/vaultLens.js";
import { aggregate3 } from "../chains/multicall3.js";
import type { BlockRef } from "../chains/readEachChain.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { Position } from "../contracts/Positions.js";
import type { DisownedNft, DisownedNfts } from "../indexer/DisownedNfts.js";
import type { IndexReader } from "../indexer/IndexReader.js";
import { readTokenMetadata } from "../indexer/readTokenMetadata.js";
import { logoUrl } from "../logos/logoUrl.js";
import { planPricing } from "../pricing/planPricing.js";
import type { PoolLookup } from "../pricing/poolLookup.js";
import { discoverPositions } from "./discoverPositions.js";
import { lendingLensCode } from "./lens/lendingLens.js";
import { restakeLensCode } from "./lens/restakeLens.js";
import type { PositionPlan, TokenInfo, Valuation } from "./PositionPlan.js";
import { planAaveTokens } from "./types/aaveTokens.js";
import { planAmmV2 } from "./types/ammV2.js";
import { planCometMarkets } from "./types/cometMarkets.js";
import { algebraReads, v3Reads } from "./types/concentratedReads.js";
import { planCTokenMarkets } from "./types/cTokenMarkets.js";
import { planErc4626 } from "./types/erc4626Vaults.js";
import { planConcentratedNfts } from "./types/nftConcentrated.js";
import { planV4Nfts } from "./types/nftV4.js";
import { planRestakeStrategies } from "./types/restakeStrategies.js";
import { planYieldSplit } from "./types/yieldSplitTokens.js";

export interface ReadPositionsParameters {
  readonly chain: ChainConfig;
  readonly wallet: string;
  /** The block the index has reached, pinned by hash when known: discovery and reads agree on it. */
  readonly block: BlockRef;
  readonly publicUrl: string;
  /** Finds pools the index lacks by asking the factories, before prices are planned. */
  readonly pools?: PoolLookup | undefined;
  /** Told of the wallet's position NFTs the read found owned by another address (stale records). */
  readonly disowned?: DisownedNfts | undefined;
  /**
   * `block` is a past block asked for (`block_number`): the candidates are every position NFT the
   * wallet is known to have held, not only those it holds now; its owner at `block` decides.
   */
  readonly past?: boolean;
}

/** Name, symbol and decimals of `tokens`: the index's, read from the chain for any it has not met. */
const describe = async (
  client: ChainRpc,
  index: IndexReader,
  chain: ChainConfig,
  tokens: ReadonlyArray<string>,
): Promise<ReadonlyMap<string, TokenInfo>> => {
  const erc20s = [...new Set(tokens)].filter((t) => t !== NATIVE_CURRENCY);
  const indexed = await index.tokenMetadata(chain.chain_id, erc20s);
  const missing = erc20s.filter((_, i) => indexed[i] === undefined);
  const fetched = missing.length === 0 ? [] : await readTokenMetadata(client, missing);
  const out = new Map<string, TokenInfo>([[NATIVE_CURRENCY, { address: NATIVE_CURRENCY, ...chain.native }]]);
  erc20s.forEach((token, i) => {
    const meta = indexed[i] ?? fetched[missing.indexOf(token)];
    out.set(token, {
      address: token,
      name: meta?.name ?? null,
      symbol: meta?.symbol ?? null,
      decimals: meta?.decimals ?? null,
    });
  });
  return out;
};

/**
 * A wallet's DeFi positions on one chain at one block: discovery from the index, then ONE
 * eth_call (a Multicall3 aggregate3 at `block`) carrying every position type's reads and every
 * pool read that prices their tokens, then each type shapes its positions from the results.
 */
export const readChainPositions = async (
  client: ChainRpc,
  index: IndexReader,
  params: ReadPositionsParameters,
): Promise<ReadonlyArray<Position>> => {
  const { chain, wallet } = params;
  const candidates = await discoverPositions(index, chain, wallet, params.past === true ? "ever" : "now");
  const stateViews = new Map(protocolsOf(chain).map((p) => [p.address, p.state_view]));
  const { lending } = candidates;
  const lensCode = lending.cTokens.length + lending.comets.length > 0 ? await lendingLensCode() : "0x";
  const vaultCode = candidates.vaults.length > 0 ? await vaultLensCode() : "0x";
  const restakeCode = candidates.restaking.length > 0 ? await restakeLensCode() : "0x";
  const plans: ReadonlyArray<PositionPlan> = [
    planAmmV2(wallet, candidates.lpPools),
    planConcentratedNfts(
      wallet,
      candidates.nfts.filter((n) => n.manager.kind === "v3"),
      v3Reads,
    ),
    planConcentratedNfts(
      wallet,
      candidates.nfts.filter((n) => n.manager.kind === "algebra"),
      algebraReads,
    ),
    planV4Nfts(
      wallet,
      candidates.nfts.filter((n) => n.manager.kind === "v4"),
      stateViews,
    ),
    planAaveTokens(wallet, lending.aave),
    planCTokenMarkets(wallet, lending.cTokens, lensCode),
    planCometMarkets(wallet, lending.comets, lensCode),
    planErc4626(wallet, candidates.vaults, vaultCode),
    planRestakeStrategies(wallet, candidates.restaking, restakeCode),
    planYieldSplit(wallet, candidates.yieldSplit),
  ];
  const calls = plans.flatMap((plan) => plan.calls);
  if (calls.length === 0) return [];

  const asPriced = (token: string) =>
    token === NATIVE_CURRENCY && chain.wrapped_native !== undefined ? chain.wrapped_native : token;
  const priced = [...new Set(plans.flatMap((p) => p.priced).map(asPriced))];
  await params.pools?.ensurePools(chain, priced, params.block);
  const pricing = await planPricing(index, chain, priced);
  const results = await aggregate3(client, [...calls, ...pricing.calls], {
    block: params.block,
  });
  const prices = pricing.finish(results.slice(calls.length));
  const tokens = await describe(
    client,
    index,
    chain,
    plans.flatMap((p) => p.described),
  );
  const valuation: Valuation = {
    chain,
    price: (token) => prices.get(asPriced(token)),
    token: (token) => tokens.get(token) ?? { address: token, name: null, symbol: null, decimals: null },
    logo: (token) => logoUrl(params.publicUrl, chain.chain_id, asPriced(token)),
  };
  let offset = 0;
  const disowned: Array<DisownedNft> = [];
  const positions = plans.flatMap((plan) => {
    const own = results.slice(offset, offset + plan.calls.length);
    offset += plan.calls.length;
    for (const held of plan.disowned?.(own) ?? [])
      disowned.push({
        chainId: chain.chain_id,
        wallet,
        manager: held.nft.manager,
        tokenId: held.nft.token_id,
        readBlock: params.block.number,
      });
    return plan.finish(own, valuation);
  });
  if (disowned.length > 0) params.disowned?.offer(disowned);
  return positions;
};
