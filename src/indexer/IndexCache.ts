import { approximateBytes } from "../lib/approximateBytes.js";
import { type ByteBudget, Lru } from "../lib/Lru.js";
import type { IndexCheckpoint, Operation } from "./applyBlock.js";
import type {
  WalletLendingMarket,
  WalletPositionNft,
  WalletRestakeDeposit,
  WalletToken,
} from "./IndexReader.js";
import type { IndexedPool, LendingToken, TokenMetadata, VaultProbe } from "./IndexRecords.js";
import { PREFIX } from "./indexKeys.js";

const WALLET_PREFIX = `${PREFIX}wt!`;
const WALLET_NFT_PREFIX = `${PREFIX}wn!`;
const WALLET_LENDING_PREFIX = `${PREFIX}lw!`;
const WALLET_RESTAKE_PREFIX = `${PREFIX}rs!`;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/** A byte budget that weighs keys and values by their approximate heap size. */
const weighed = <V>(maxBytes: number): ByteBudget<string, V> => ({
  maxBytes,
  sizeOf: (key, value) => approximateBytes(key) + approximateBytes(value),
});

/**
 * Memory in front of the index views, for the request path: which tokens a
 * wallet touched, which position NFTs it holds, which lending markets it is
 * in and where it restaked, the pools of a token, pools, lending tokens and
 * vault probes by address, token metadata
 * and each chain's checkpoint. The indexer of the same process reports every batch it writes,
 * and exactly what that batch changes is forgotten (a wallet's tokens when the
 * block touched that wallet, pools and metadata when the block added some), so
 * the memory never serves a view older than LevelDB. A reorg forgets everything.
 */
export class IndexCache {
  readonly wallets: Lru<string, ReadonlyArray<WalletToken>>;
  readonly nfts: Lru<string, ReadonlyArray<WalletPositionNft>>;
  readonly markets: Lru<string, ReadonlyArray<WalletLendingMarket>>;
  /** Pools of a token, by `<chain>|<token>`. */
  readonly pools: Lru<string, ReadonlyArray<IndexedPool>>;
  /** Pools by `<chain>|<pool address or id>` (null: not a pool). */
  readonly poolsById: Lru<string, IndexedPool | null>;
  /** Lending tokens by `<chain>|<token>` (null: not one). */
  readonly lending: Lru<string, LendingToken | null>;
  readonly restakes: Lru<string, ReadonlyArray<WalletRestakeDeposit>>;
  /** Vault probes by `<chain>|<token>` (null: never probed). */
  readonly vaults: Lru<string, VaultProbe | null>;
  readonly metadata: Lru<string, TokenMetadata | null>;
  readonly checkpoints = new Map<number, IndexCheckpoint>();
  #batches = 0;

  /**
   * `maxBytes` bounds the views together (approximately): wallets and tokens are
   * keyed by what clients ask for, so without it random addresses would fill memory.
   */
  constructor(maxBytes = DEFAULT_MAX_BYTES) {
    this.wallets = new Lru(100_000, weighed(maxBytes * 0.35));
    this.nfts = new Lru(100_000, weighed(maxBytes * 0.1));
    this.markets = new Lru(100_000, weighed(maxBytes * 0.1));
    this.pools = new Lru(100_000, weighed(maxBytes * 0.1));
    this.poolsById = new Lru(200_000, weighed(maxBytes * 0.05));
    this.lending = new Lru(500_000, weighed(maxBytes * 0.05));
    this.restakes = new Lru(100_000, weighed(maxBytes * 0.02));
    this.vaults = new Lru(500_000, weighed(maxBytes * 0.08));
    this.metadata = new Lru(500_000, weighed(maxBytes * 0.15));
  }

  /**
   * How many batches the indexer has reported. A read of LevelDB that began before a batch may return
   * what the batch replaced, and the batch's forgetting has already happened: remembering that answer
   * would serve it until the key changes again (for a reverted wallet, for ever). So the request path
   * notes this before reading and remembers what it read only if it is {@link unchangedSince} then.
   */
  get batches(): number {
    return this.#batches;
  }

  unchangedSince(batches: number): boolean {
    return this.#batches === batches;
  }

  /** Forgets what `ops` change; records the chain's new checkpoint. */
  applied(chainId: number, checkpoint: IndexCheckpoint, ops: ReadonlyArray<Operation>): void {
    this.written(ops);
    this.checkpoints.set(chainId, checkpoint);
  }

  /**
   * Forgets what `ops` change, for writes that are not a block's (discovery's findings): the
   * checkpoint stays, and reads that began before them are not remembered.
   */
  written(ops: ReadonlyArray<Operation>): void {
    let pools = false;
    let metadata = false;
    let lending = false;
    let vaults = false;
    for (const op of ops) {
      if (op.key.startsWith(WALLET_PREFIX))
        this.wallets.delete(op.key.slice(WALLET_PREFIX.length, WALLET_PREFIX.length + 42));
      else if (op.key.startsWith(WALLET_NFT_PREFIX))
        this.nfts.delete(op.key.slice(WALLET_NFT_PREFIX.length, WALLET_NFT_PREFIX.length + 42));
      else if (op.key.startsWith(WALLET_LENDING_PREFIX))
        this.markets.delete(op.key.slice(WALLET_LENDING_PREFIX.length, WALLET_LENDING_PREFIX.length + 42));
      else if (op.key.startsWith(WALLET_RESTAKE_PREFIX))
        this.restakes.delete(op.key.slice(WALLET_RESTAKE_PREFIX.length, WALLET_RESTAKE_PREFIX.length + 42));
      else if (op.key.startsWith(`${PREFIX}pool!`) || op.key.startsWith(`${PREFIX}tp!`)) pools = true;
      else if (op.key.startsWith(`${PREFIX}tm!`)) metadata = true;
      else if (op.key.startsWith(`${PREFIX}lt!`)) lending = true;
      else if (op.key.startsWith(`${PREFIX}vt!`)) vaults = true;
    }
    if (pools) {
      this.pools.clear();
      this.poolsById.clear();
    }
    if (metadata) this.metadata.clear();
    if (lending) this.lending.clear();
    if (vaults) this.vaults.clear();
    this.#batches++;
  }

  /** A reorg: reverted writes are not itemised, so everything is forgotten. */
  reverted(chainId: number, checkpoint: IndexCheckpoint): void {
    this.wallets.clear();
    this.nfts.clear();
    this.markets.clear();
    this.pools.clear();
    this.poolsById.clear();
    this.lending.clear();
    this.restakes.clear();
    this.vaults.clear();
    this.metadata.clear();
    this.#batches++;
    this.checkpoints.set(chainId, checkpoint);
  }
}
