import { type ChainConfig, protocolsOf } from "../../chains/ChainsConfig.js";
import type { WalletDiscovery } from "../../discovery/WalletDiscovery.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import type { HeldNft } from "../../positions/discoverPositions.js";

/** A V3, Algebra or V4 position NFT a wallet holds, with its pool and range as the index recorded them. */
export type HeldRange = {
  /** The NFT contract: a NonfungiblePositionManager, or V4's PositionManager. */
  readonly manager: string;
  readonly tokenId: bigint;
  /** The pool's address, or a V4 pool's id. */
  readonly pool: string;
  readonly protocol: string;
  readonly tickLower: number;
  readonly tickUpper: number;
} & (
  | { readonly kind: "v3" | "algebra" }
  | {
      readonly kind: "v4";
      /** Whose logs carry the pool's events, the pool id as topic 1. */
      readonly poolManager: string;
      /** The PoolManager's StateView, which answers the pool's tick (`getSlot0`). */
      readonly stateView: string;
    }
);

/**
 * The ranges of a wallet's position NFTs as discovery found them (discoverPositions.ts). A V4 NFT
 * whose PoolManager has no StateView in the chain's registry is left out, as the positions
 * endpoint leaves it out: its pool's tick cannot be read.
 */
export const heldRangesOf = (chain: ChainConfig, nfts: ReadonlyArray<HeldNft>): ReadonlyArray<HeldRange> => {
  const stateViews = new Map(protocolsOf(chain).map((p) => [p.address, p.state_view]));
  return nfts.flatMap(({ nft, manager, pool, tickLower, tickUpper }): Array<HeldRange> => {
    const common = {
      manager: nft.manager,
      tokenId: nft.token_id,
      pool: pool.pool,
      protocol: manager.protocol,
      tickLower,
      tickUpper,
    };
    if (manager.kind !== "v4") return [{ ...common, kind: manager.kind }];
    const stateView = stateViews.get(manager.factory);
    return stateView === undefined
      ? []
      : [{ ...common, kind: "v4", poolManager: manager.factory, stateView }];
  });
};

/**
 * Each wallet's position NFTs, read from the index once and kept until a block involves the wallet
 * (a transaction it sent, or a log naming it in a topic, as an NFT transfer does) or discovery
 * writes something for it (`version`): a block with a swap then costs no index read per watched
 * wallet, and a wallet first read while its history was still being discovered (none of its NFTs
 * known yet) is read again once discovery has found them, though it does nothing itself. A
 * wallet's version also moves when discovery lets go of another wallet of its floor: one more
 * index read, never a missed write.
 */
export const heldRangesCache = (
  read: (chain: ChainConfig, wallet: string) => Promise<ReadonlyArray<HeldRange>>,
  discovery?: Pick<WalletDiscovery, "version">,
) => {
  const held = new Map<
    string,
    { readonly version: number; readonly ranges: Promise<ReadonlyArray<HeldRange>> }
  >();
  return {
    /** Forgets the wallets `block` involves, then answers each wallet's positions. */
    of: (chain: ChainConfig, block: ChainBlock, wallets: ReadonlySet<string>) => {
      const involved = new Set<string>();
      for (const tx of block.transactions) if (wallets.has(tx.from)) involved.add(tx.from);
      for (const log of block.logs)
        for (const topic of log.topics.slice(1)) {
          const address = `0x${topic.slice(26)}`;
          if (topic.startsWith("0x000000000000000000000000") && wallets.has(address)) involved.add(address);
        }
      for (const wallet of involved) held.delete(`${chain.chain_id}|${wallet}`);
      return Promise.all(
        [...wallets].map(async (wallet) => {
          const key = `${chain.chain_id}|${wallet}`;
          // Taken before the read: a write of discovery's during the read makes the next block read again.
          const version = discovery?.version(chain.chain_id, wallet) ?? 0;
          let entry = held.get(key);
          if (entry === undefined || entry.version !== version) {
            const fresh = { version, ranges: read(chain, wallet) };
            held.set(key, fresh);
            // A failed read is read again at the next block rather than kept.
            fresh.ranges.catch(() => {
              if (held.get(key) === fresh) held.delete(key);
            });
            entry = fresh;
          }
          return { wallet, ranges: await entry.ranges };
        }),
      );
    },
  };
};

export type HeldRanges = ReturnType<typeof heldRangesCache>;
