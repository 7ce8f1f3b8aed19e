import type { Position } from "../../contracts/Positions.js";
import { bytesHex } from "./positionIdentity.js";

/**
 * What can move a position's USD value without its wallet doing anything: `contracts` whose logs
 * change what the position holds (a pool's swaps move an LP's or a range's amounts, a vault's or a
 * strategy's reports its share price, a yield market's trades its PT price; a V4 pool is its pool
 * id, which its PoolManager's logs carry as first topic), and `tokens` whose prices value it.
 * Lending entries hold a balance that only their wallet's actions, a liquidation naming it, or
 * interest change: interest is slow and moves no alert by itself (it adds up and is seen at the
 * wallet's next evaluation), so their markets' busy logs are not followed, only their tokens'
 * prices. A cToken entry does not show its underlying: `underlying` is given it.
 */
export const positionSources = (
  position: Position,
  underlying?: string,
): { readonly contracts: ReadonlyArray<string>; readonly tokens: ReadonlyArray<string> } => {
  switch (position.type) {
    case "AmmV2":
    case "Nft":
      return { contracts: [position.pool], tokens: [position.token0, position.token1] };
    case "NftV4":
      return { contracts: [bytesHex(position.pool_id)], tokens: [position.token0, position.token1] };
    case "Tokenized":
      return { contracts: [], tokens: [position.underlying_token] };
    case "LendingV2":
    case "LendingV2Fork":
      return { contracts: [], tokens: underlying === undefined ? [] : [underlying] };
    case "LendingV3":
      return { contracts: [], tokens: [position.base_token, ...position.collateral.map((c) => c.token)] };
    case "Erc4626":
      // A vault over a vault shows the inner vault as its underlying: its reports count too.
      return {
        contracts: [position.token, position.underlying_token],
        tokens: [position.underlying_token],
      };
    case "YieldSplit":
      return { contracts: position.market === null ? [] : [position.market], tokens: [position.asset] };
    case "RestakeStrategy":
      return { contracts: [position.token], tokens: [position.underlying_token] };
  }
};
