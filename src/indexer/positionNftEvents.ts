import type { ProtocolKind } from "../chains/ChainsConfig.js";
import type { DecodedEvent } from "../decoding/index.js";

const ZERO = "0x0000000000000000000000000000000000000000";

/** A position manager of the protocol registry: whose NFTs are liquidity positions. */
export interface PositionManager {
  /** The NFT contract (V3/Algebra NonfungiblePositionManager, V4 PositionManager). */
  readonly manager: string;
  readonly kind: Extract<ProtocolKind, "v3" | "v4" | "algebra">;
  readonly protocol: string;
  /** Factory (v3, algebra) or PoolManager (v4) of the manager's pools. */
  readonly factory: string;
}

/** A position NFT changing hands (`from` zero: minted; `to` zero: burned). */
export interface NftTransfer {
  readonly manager: string;
  readonly tokenId: bigint;
  readonly from: string;
  readonly to: string;
}

/** Where a newly minted position NFT lives: its pool (V4: pool id) and range, from the mint's own logs. */
export interface NftMint {
  readonly manager: string;
  readonly tokenId: bigint;
  readonly pool: string;
  readonly tickLower: number;
  readonly tickUpper: number;
}

const saltOf = (tokenId: bigint): string => `0x${tokenId.toString(16).padStart(64, "0")}`;

/**
 * The pool of an NFT minted by `transfer`, found in the same transaction. A V3-design manager
 * mints the pool position in its own name just before it mints the NFT, so the pool's last
 * `Mint` with the manager as owner before the NFT's `Transfer` is the NFT's; a V4 manager
 * names the position by a salt equal to the token id.
 */
const poolOfMint = (
  events: ReadonlyArray<DecodedEvent>,
  index: number,
  manager: PositionManager,
  tokenId: bigint,
): Omit<NftMint, "manager" | "tokenId"> | undefined => {
  const tx = events[index]!.transactionHash;
  if (manager.kind === "v4") {
    const salt = saltOf(tokenId);
    for (const event of events) {
      if (
        event.transactionHash === tx &&
        event.kind === "v4.modifyLiquidity" &&
        event.address === manager.factory &&
        event.sender === manager.manager &&
        event.salt === salt
      )
        return { pool: event.id, tickLower: event.tickLower, tickUpper: event.tickUpper };
    }
    return undefined;
  }
  for (let i = index - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.transactionHash !== tx) break;
    if (event.kind === "v3.mint" && event.owner === manager.manager)
      return { pool: event.address, tickLower: event.tickLower, tickUpper: event.tickUpper };
  }
  return undefined;
};

/**
 * Position NFT movements in one block's decoded events (in log order), for the registry's
 * position managers: every transfer, and for every mint the pool and range it was minted in.
 */
export const positionNftEvents = (
  events: ReadonlyArray<DecodedEvent>,
  managers: ReadonlyMap<string, PositionManager>,
): { readonly transfers: ReadonlyArray<NftTransfer>; readonly mints: ReadonlyArray<NftMint> } => {
  const transfers: Array<NftTransfer> = [];
  const mints: Array<NftMint> = [];
  events.forEach((event, index) => {
    if (event.kind !== "erc721.transfer") return;
    const manager = managers.get(event.address);
    if (manager === undefined) return;
    transfers.push({ manager: event.address, tokenId: event.tokenId, from: event.from, to: event.to });
    if (event.from !== ZERO) return;
    const minted = poolOfMint(events, index, manager, event.tokenId);
    if (minted !== undefined) mints.push({ manager: event.address, tokenId: event.tokenId, ...minted });
  });
  return { transfers, mints };
};
