import { bytesToHex } from "viem";
import type { Position } from "../../contracts/Positions.js";

/**
 * The wallet's positions-endpoint entries that hold a position NFT: the `Nft` entry of its pool
 * (one per V3-design or Algebra pool, its NFTs inside), or a V4 NFT's own `NftV4` entry, which
 * names its pool id as 32 bytes. `pool` is the pool's address or V4 id, `tokenId` hex as the
 * endpoint shows it.
 */
export const entriesHolding = (
  positions: ReadonlyArray<Position>,
  pool: string,
  tokenId: string,
): ReadonlyArray<Position> =>
  positions.filter((p) => {
    if (p.type === "Nft") return p.pool === pool && p.positions.some((n) => n.token_id === tokenId);
    if (p.type === "NftV4")
      return (
        bytesToHex(Uint8Array.from(p.pool_id)) === pool && p.positions.some((n) => n.token_id === tokenId)
      );
    return false;
  });
