import { Lru } from "../lib/Lru.js";
import type { IndexCheckpoint, Operation } from "./applyBlock.js";
import type { WalletToken } from "./IndexReader.js";
import type { IndexedPool, TokenMetadata } from "./IndexRecords.js";
import { PREFIX } from "./indexKeys.js";

const WALLET_PREFIX = `${PREFIX}wt!`;

/**
 * Memory in front of the index views, for the request path: which tokens a
 * wallet touched, the pools of a token, token metadata and each chain's
 * checkpoint. The indexer of the same process reports every batch it writes,
 * and exactly what that batch changes is forgotten (a wallet's tokens when the
 * block touched that wallet, pools and metadata when the block added some), so
 * the memory never serves a view older than LevelDB. A reorg forgets everything.
 */
export class IndexCache {
  readonly wallets = new Lru<string, ReadonlyArray<WalletToken>>(100_000);
  readonly pools = new Lru<string, ReadonlyArray<IndexedPool>>(100_000);
  readonly metadata = new Lru<string, TokenMetadata | null>(500_000);
  readonly checkpoints = new Map<number, IndexCheckpoint>();

  /** Forgets what `ops` change; records the chain's new checkpoint. */
  applied(chainId: number, checkpoint: IndexCheckpoint, ops: ReadonlyArray<Operation>): void {
    let pools = false;
    let metadata = false;
    for (const op of ops) {
      if (op.key.startsWith(WALLET_PREFIX))
        this.wallets.delete(op.key.slice(WALLET_PREFIX.length, WALLET_PREFIX.length + 42));
      else if (op.key.startsWith(`${PREFIX}pool!`) || op.key.startsWith(`${PREFIX}tp!`)) pools = true;
      else if (op.key.startsWith(`${PREFIX}tm!`)) metadata = true;
    }
    if (pools) this.pools.clear();
    if (metadata) this.metadata.clear();
    this.checkpoints.set(chainId, checkpoint);
  }

  /** A reorg: reverted writes are not itemised, so everything is forgotten. */
  reverted(chainId: number, checkpoint: IndexCheckpoint): void {
    this.wallets.clear();
    this.pools.clear();
    this.metadata.clear();
    this.checkpoints.set(chainId, checkpoint);
  }
}
