import type { ChainConfig } from "../../chains/ChainsConfig.js";
import { lendingTokenKey } from "../../indexer/indexKeys.js";
import type { Operation } from "../../storage/Level.js";
import { findAaveReserves } from "./aaveReserves.js";
import { findCometMarkets } from "./cometMarkets.js";
import { findCometParticipation } from "./cometParticipation.js";
import { findCTokenBorrows } from "./cTokenBorrows.js";
import { findCTokenMarkets } from "./cTokenMarkets.js";
import type { DiscoveryContext, Findings } from "./DiscoveryContext.js";
import { findEnumerableNfts } from "./enumerableNfts.js";
import { findRestakeDeposits } from "./restakeDeposits.js";
import { resolveV4Nfts, v4PositionManagers } from "./v4NftsById.js";

/**
 * Position discovery without history, as a discovery orchestrator runs it (its `Finders`):
 * - per chain, the lists a chain keeps: lending reserves and markets (run before a wallet's balance
 *   sweep, whose universe then holds their tokens: aTokens, debt tokens, cTokens, Comets);
 * - per wallet, what it holds that no token balance shows: enumerable position NFTs, restaking
 *   deposits, cToken borrows, Comet parts;
 * - NFTs of non-enumerable managers (V4) by id, from the wallet's Transfer logs of those contracts.
 * Every finder reads at the context's block and answers writes for the index views the indexer keeps,
 * so the request path reads what it found as it reads what live blocks showed. Finders are
 * independent: run them at once.
 */
export const POSITION_FINDERS = {
  chain: [findAaveReserves, findCTokenMarkets, findCometMarkets] as ReadonlyArray<
    (context: DiscoveryContext) => Promise<Findings>
  >,
  wallet: [
    findEnumerableNfts,
    findRestakeDeposits,
    findCTokenBorrows,
    findCometParticipation,
  ] as ReadonlyArray<(context: DiscoveryContext, wallet: string) => Promise<Findings>>,
  nftContracts: v4PositionManagers as (chain: ChainConfig) => ReadonlySet<string>,
  nftIds: resolveV4Nfts as (
    context: DiscoveryContext,
    wallet: string,
    ids: ReadonlyMap<string, ReadonlyArray<bigint>>,
  ) => Promise<Findings>,
};

/**
 * The lending tokens among discovery's writes (aTokens, variable debt tokens, cTokens, Comets): what a
 * balance sweep must add to its universe. tokenUniverse (src/discovery) reads the same from the
 * index's `lt!` keys once the writes are in.
 */
export const lendingTokensIn = (chainId: number, ops: ReadonlyArray<Operation>): ReadonlyArray<string> => {
  const prefix = lendingTokenKey(chainId, "");
  return [
    ...new Set(
      ops
        .filter((op) => op.type === "put" && op.key.startsWith(prefix))
        .map((op) => op.key.slice(prefix.length)),
    ),
  ];
};
