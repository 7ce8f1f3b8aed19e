import { type ChainConfig, protocolsOf } from "../../chains/ChainsConfig.js";
import type { Position } from "../../contracts/Positions.js";

/** 32 bytes as the positions endpoint shows them (an array of integers), as 0x hex. */
export const bytesHex = (bytes: ReadonlyArray<number>): string =>
  `0x${bytes.map((b) => b.toString(16).padStart(2, "0")).join("")}`;

/**
 * What makes one position one, for `value_change_pct`: its type and the contract it is held in,
 * as the positions endpoint shows them. One entry of the endpoint is one position: an Nft entry is
 * the wallet's NFTs in one pool together (the entry's `usd_value` is theirs together), an NftV4
 * entry one NFT (its PoolManager and salt), a lending entry one token or market, a vault, strategy
 * or yield token its token; a cToken market shows a wallet's supply and its borrow as two entries of
 * the same token, told apart by their `token_type`. The address already says which protocol: no
 * name is needed in the key.
 */
export const positionKey = (position: Position): string => {
  switch (position.type) {
    case "AmmV2":
    case "Nft":
      return `${position.type}:${position.pool}`;
    case "NftV4":
      return `${position.type}:${position.pool_manager}:${bytesHex(position.salt)}`;
    case "LendingV3":
      return `${position.type}:${position.market}`;
    case "LendingV2":
    case "LendingV2Fork":
      return `${position.type}:${position.token}:${position.token_type}`;
    default:
      return `${position.type}:${position.token}`;
  }
};

/**
 * The protocol a position belongs to, as `protocols` filters name it: the entry's own `protocol`;
 * for Aave's Tokenized entries, which carry none, the registry name of their lending pool; for
 * ERC-4626 vaults, which belong to no registered protocol, `null`.
 */
export const positionProtocol = (chain: ChainConfig, position: Position): string | null => {
  if ("protocol" in position) return position.protocol;
  if (position.type === "Tokenized")
    return protocolsOf(chain).find((p) => p.address === position.lending_pool)?.protocol ?? null;
  return null;
};
