import type { ChainConfig } from "../../chains/ChainsConfig.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";

/** A V3 or Algebra position NFT a wallet holds, with its pool and range as the index recorded them. */
export interface HeldRange {
  readonly manager: string;
  readonly tokenId: bigint;
  readonly pool: string;
  readonly kind: "v3" | "algebra";
  readonly protocol: string;
  readonly tickLower: number;
  readonly tickUpper: number;
}

/**
 * Each wallet's position NFTs, read from the index once and kept until a block involves the wallet
 * (a transaction it sent, or a log naming it in a topic, as an NFT transfer does): a block with a
 * swap then costs no index read per watched wallet.
 */
export const heldRangesCache = (
  read: (chain: ChainConfig, wallet: string) => Promise<ReadonlyArray<HeldRange>>,
) => {
  const held = new Map<string, Promise<ReadonlyArray<HeldRange>>>();
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
          let pending = held.get(key);
          if (pending === undefined) {
            pending = read(chain, wallet);
            held.set(key, pending);
            // A failed read is read again at the next block rather than kept.
            pending.catch(() => held.delete(key));
          }
          return { wallet, ranges: await pending };
        }),
      );
    },
  };
};

export type HeldRanges = ReturnType<typeof heldRangesCache>;
