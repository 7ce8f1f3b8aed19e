import { approximateBytes } from "../lib/approximateBytes.js";
import { type ByteBudget, Lru } from "../lib/Lru.js";
import type { Operation } from "../storage/Level.js";
import type {
  IndexCheckpoint,
  IndexedPool,
  LendingToken,
  TokenMetadata,
  VaultProbe,
  WalletLendingMarket,
  WalletPositionNft,
  WalletRestakeDeposit,
  WalletToken,
} from "./IndexRecords.js";
import { PREFIX, walletTokenView } from "./indexKeys.js";

const WALLET_PREFIX = walletTokenView;
const WALLET_NFT_PREFIX = `${PREFIX}wn!`;
const WALLET_LENDING_PREFIX = `${PREFIX}lw!`;
const WALLET_RESTAKE_PREFIX = `${PREFIX}rs!`;
const METADATA_PREFIX = `${PREFIX}tm!`;
const VAULT_PREFIX = `${PREFIX}vt!`;
const LENDING_PREFIX = `${PREFIX}lt!`;
const POOL_PREFIX = `${PREFIX}pool!`;
const TOKEN_POOL_PREFIX = `${PREFIX}tp!`;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/** How the wallets view keys a wallet's tokens: all of them, or one chain's (`<wallet>|<chain>`). */
export const walletCacheKey = (wallet: string, chainId?: number) =>
  chainId === undefined ? wallet : `${wallet}|${chainId}`;

/** The wallet of a wallet-keyed view's key: the 42 characters after the view's prefix. */
const walletOf = (key: string, prefix: string) => key.slice(prefix.length, prefix.length + 42);

/**
 * Forgets one key of a point view, keyed `<chain>|<address or id>` as the reader keys it
 * (`<prefix><12-digit chain>!<address or id>` in LevelDB). Forgotten, not set to the written
 * value: batches of the indexer and of discovery may finish in another order than LevelDB
 * applied them, and a value taken from the one that finished last could outlive the one on disk.
 */
const forgetPoint = <V>(cache: Lru<string, V>, key: string, prefix: string) =>
  cache.delete(`${Number(key.slice(prefix.length, prefix.length + 12))}|${key.slice(prefix.length + 13)}`);

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
 * and exactly what that batch changes is forgotten (a wallet's tokens when the block touched
 * that wallet, a token's metadata or pools when the block wrote them), so the memory never
 * serves a view older than LevelDB. A reorg forgets everything.
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
   * Forgets the keys `ops` wrote, for writes that are not a block's (discovery's findings): the
   * checkpoint stays, and reads that began before them are not remembered. Only the keys written
   * are forgotten (and the pool lists of a written pool's tokens): clearing a whole view, as this
   * once did, made every block or sweep that met one new token send the next requests of every
   * wallet to LevelDB for all of their tokens' metadata and pools.
   */
  written(ops: ReadonlyArray<Operation>): void {
    for (const op of ops) this.#apply(op);
    this.#batches++;
  }

  #apply(op: Operation): void {
    const key = op.key;
    if (key.startsWith(WALLET_PREFIX)) {
      // `<wallet>!<12-digit chain>!<token>`: the wallet's list and that chain's.
      const wallet = walletOf(key, WALLET_PREFIX);
      this.wallets.delete(wallet);
      this.wallets.delete(
        walletCacheKey(wallet, Number(key.slice(WALLET_PREFIX.length + 43, WALLET_PREFIX.length + 55))),
      );
    } else if (key.startsWith(WALLET_NFT_PREFIX)) this.nfts.delete(walletOf(key, WALLET_NFT_PREFIX));
    else if (key.startsWith(WALLET_LENDING_PREFIX)) this.markets.delete(walletOf(key, WALLET_LENDING_PREFIX));
    else if (key.startsWith(WALLET_RESTAKE_PREFIX))
      this.restakes.delete(walletOf(key, WALLET_RESTAKE_PREFIX));
    else if (key.startsWith(METADATA_PREFIX)) forgetPoint(this.metadata, key, METADATA_PREFIX);
    else if (key.startsWith(VAULT_PREFIX)) forgetPoint(this.vaults, key, VAULT_PREFIX);
    else if (key.startsWith(LENDING_PREFIX)) forgetPoint(this.lending, key, LENDING_PREFIX);
    else if (key.startsWith(TOKEN_POOL_PREFIX)) {
      // `<chain>!<token>!<pool>`: that token's list gains or loses the pool.
      const [chain, token] = key.slice(TOKEN_POOL_PREFIX.length).split("!");
      this.pools.delete(`${Number(chain)}|${token}`);
    } else if (key.startsWith(POOL_PREFIX)) {
      const chainId = Number(key.slice(POOL_PREFIX.length, POOL_PREFIX.length + 12));
      forgetPoint(this.poolsById, key, POOL_PREFIX);
      // Token lists hold the pool's record itself: those of its tokens are read again. A removed
      // pool's tokens are not in the operation, so every list is.
      if (op.type === "put") {
        const pool = op.value as IndexedPool;
        this.pools.delete(`${chainId}|${pool.token0}`);
        this.pools.delete(`${chainId}|${pool.token1}`);
      } else this.pools.clear();
    }
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
