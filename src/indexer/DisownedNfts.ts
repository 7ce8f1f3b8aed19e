import type { Operation } from "../storage/Level.js";
import type { WalletNft } from "./IndexRecords.js";
import { walletNftKey } from "./indexKeys.js";
import type { IndexReads } from "./PendingWrites.js";

/** A position NFT the index records for `wallet` that a read at `readBlock` found owned by another address. */
export interface DisownedNft {
  readonly chainId: number;
  readonly wallet: string;
  readonly manager: string;
  readonly tokenId: bigint;
  readonly readBlock: number;
}

/** Records waiting to be checked, at most: more offers before the next indexed block are dropped. */
const MAX_WAITING = 10_000;

/**
 * Stale `wn!` records, forgotten by the indexer. Discovery writes that a wallet holds an NFT at the
 * block it read; if the wallet sold it in a block the index had already applied, nothing would ever
 * delete that record, and every positions read would pay an `ownerOf` for it. Reads report what they
 * found disowned here; the indexer deletes each with its next batch, and only if the record still
 * says the wallet received it at or before the block that read saw another owner: a record the
 * indexer rewrote since (the wallet got the NFT back later) has a later block and stays. The check
 * and the delete go with the indexer's own writes, so no block's write can land between them.
 */
export class DisownedNfts {
  readonly #waiting = new Map<string, DisownedNft>();

  /** Reports NFTs a read found owned by someone else (a later read of the same one supersedes). */
  offer(nfts: ReadonlyArray<DisownedNft>): void {
    for (const nft of nfts) {
      const key = walletNftKey(nft.wallet, nft.chainId, nft.manager, nft.tokenId);
      const earlier = this.#waiting.get(key);
      if (earlier === undefined && this.#waiting.size >= MAX_WAITING) continue;
      if (earlier === undefined || earlier.readBlock < nft.readBlock) this.#waiting.set(key, nft);
    }
  }

  /** How many wait for the next batch. */
  get size(): number {
    return this.#waiting.size;
  }

  /** The deletions of the waiting records that are still as the reads saw them, read through `reads`; the rest are dropped. */
  async plan(reads: IndexReads): Promise<ReadonlyArray<Operation>> {
    if (this.#waiting.size === 0) return [];
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    const held = (await reads.getMany(waiting.map(([key]) => key))) as ReadonlyArray<WalletNft | undefined>;
    return waiting.flatMap(([key, nft], i) => {
      const record = held[i];
      return record !== undefined && record.block <= nft.readBlock ? [{ type: "del" as const, key }] : [];
    });
  }
}
