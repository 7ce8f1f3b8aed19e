import { type ChainConfig, indexWalletsOf } from "../chains/ChainsConfig.js";
import type { Db } from "../storage/Level.js";
import { readNow } from "../storage/readNow.js";
import type { IndexCheckpoint } from "./IndexRecords.js";
import {
  discoveryRecordPrefix,
  indexCheckpointKey,
  indexedWalletKey,
  indexedWalletsModeKey,
  PREFIX,
} from "./indexKeys.js";

/**
 * How a chain's index last recorded wallets' token touches: `idx!iwm!<chain>` -> IndexedWalletsMode.
 * `all_from`: the chain was indexed for discovered wallets only before that block, so the index
 * holds every wallet's touches from there on (and a discovered wallet's from its own mark).
 */
interface IndexedWalletsMode {
  readonly mode: "all" | "discovered";
  readonly all_from?: number;
}

const DISCOVERED_PREFIX = `${PREFIX}iw!`;

/**
 * Whose token touches the index records on each chain (a chain's `index_wallets`, ChainsConfig).
 *
 * With `all` (the default of a chain with `start_block`) every wallet's: a Base-sized block adds
 * about 110 wallet-token entries, which are most of the API worker's work per block and of its
 * LevelDB's growth. With `discovered` (the default without) only those of wallets discovery has
 * started for on that chain (a request asked about them, or a webhook watches them: its
 * announcement, and the address book for `positions` webhooks, watchedWalletMarks.ts): the others
 * are found from the chain on their first request (the sweep, and a log scan of the history the
 * index lacks), as on any chain whose history the index never read.
 *
 * A wallet is marked before its log scan's range is taken: the mark names the first block whose
 * planning had not begun when the wallet was added, and the scan reads up to the block before it.
 * Marks are kept in LevelDB (`idx!iw!<chain>!<wallet>` -> that block), so a restart, or a worker
 * that starts from this index's snapshot, records the same wallets; and in memory, one map entry a
 * wallet (about 100 bytes), since planning asks about every touch of every block.
 */
export class IndexedWallets {
  readonly #marked = new Map<number, Map<string, number>>();
  readonly #allFrom = new Map<number, number>();
  /** The highest block whose planning began in this process, per chain. */
  readonly #planning = new Map<number, number>();
  /** Chains configured `discovered` when loaded. */
  readonly #discoveredChains = new Set<number>();
  /** Marks being stored, by chain and wallet: a second `add` waits for the first. */
  readonly #adding = new Map<string, Promise<void>>();
  /** What loading changed of an index made with another setting, one sentence per chain, for the log. */
  readonly switched: Array<string> = [];

  private constructor(private readonly db: Db) {}

  /**
   * The marks in `db`, and each chain's mode settled against its configuration: a chain indexed for
   * discovered wallets and now for all of them holds every wallet's touches only from the block after
   * its checkpoint, which is recorded (`all_from`) so that log scans read the history before it.
   */
  static async load(db: Db, chains: ReadonlyArray<ChainConfig>): Promise<IndexedWallets> {
    const wallets = new IndexedWallets(db);
    for await (const [key, from] of db.iterator({ gte: DISCOVERED_PREFIX, lt: `${PREFIX}iw"` })) {
      const [chainPart, wallet] = key.slice(DISCOVERED_PREFIX.length).split("!");
      if (wallet !== undefined && typeof from === "number") wallets.#mark(Number(chainPart), wallet, from);
    }
    for (const chain of chains) {
      if (indexWalletsOf(chain) === "discovered") wallets.#discoveredChains.add(chain.chain_id);
      await wallets.#settleMode(chain);
    }
    return wallets;
  }

  async #settleMode(chain: ChainConfig): Promise<void> {
    const modeKey = indexedWalletsModeKey(chain.chain_id);
    const [stored, checkpoint] = (await this.db.getMany([modeKey, indexCheckpointKey(chain.chain_id)])) as [
      IndexedWalletsMode | undefined,
      IndexCheckpoint | undefined,
    ];
    const wanted = indexWalletsOf(chain);
    if (wanted === "all") {
      if (stored?.mode === "discovered") {
        const allFrom = (checkpoint?.number ?? -1) + 1;
        await this.db.put(modeKey, { mode: "all", all_from: allFrom } satisfies IndexedWalletsMode);
        this.#allFrom.set(chain.chain_id, allFrom);
        this.switched.push(
          `${chain.name} (${chain.chain_id}): this index recorded only discovered wallets' token touches until now (index_wallets was discovered, or a snapshot made so was restored); it records every wallet's from block ${allFrom} on, and wallets met later read their transfer logs below it`,
        );
      } else if (stored?.all_from !== undefined) this.#allFrom.set(chain.chain_id, stored.all_from);
      return;
    }
    if (stored?.mode === "discovered") return;
    // Indexed for every wallet until now: the wallets discovered meanwhile have their touches in
    // the index from where it (or its every-wallet part) begins, and go on being recorded.
    const from = this.#allFrom.get(chain.chain_id) ?? stored?.all_from ?? 0;
    const prefix = discoveryRecordPrefix(chain.chain_id);
    const batch = this.db.batch();
    for await (const key of this.db.keys({ gte: prefix, lt: `${prefix}~` })) {
      const wallet = key.slice(prefix.length);
      if (this.#marked.get(chain.chain_id)?.has(wallet) === true) continue;
      this.#mark(chain.chain_id, wallet, from);
      batch.put(indexedWalletKey(chain.chain_id, wallet), from);
    }
    batch.put(modeKey, { mode: "discovered" } satisfies IndexedWalletsMode);
    await batch.write();
    if (checkpoint !== undefined)
      this.switched.push(
        `${chain.name} (${chain.chain_id}): this index recorded every wallet's token touches until now; from block ${checkpoint.number + 1} on it records only those of the ${this.marked(chain.chain_id)} wallets discovered and of those asked about or watched later`,
      );
  }

  #mark(chainId: number, wallet: string, from: number): void {
    let chain = this.#marked.get(chainId);
    if (chain === undefined) {
      chain = new Map();
      this.#marked.set(chainId, chain);
    }
    chain.set(wallet, from);
  }

  /**
   * Whether planning a block of `chain` records the touches of `wallet`. Planning calls `planning`
   * and then asks this for every touch of the block, in one synchronous step: a wallet added after
   * that step is recorded from the next block on, which is where its mark says the index begins.
   */
  records(chain: ChainConfig, wallet: string): boolean {
    return indexWalletsOf(chain) !== "discovered" || this.#marked.get(chain.chain_id)?.has(wallet) === true;
  }

  /** Told as each block's planning begins. */
  planning(chainId: number, number: number): void {
    if (number > (this.#planning.get(chainId) ?? -1)) this.#planning.set(chainId, number);
  }

  /**
   * Marks wallets discovery starts for, or a webhook starts watching, on a chain indexed for
   * discovered wallets only (nothing to do on others, or for wallets already marked): their touches
   * are recorded from the next block planned. Resolves once the marks are stored, in one batch.
   */
  add(chain: ChainConfig, wallets: ReadonlyArray<string>): Promise<void> {
    if (indexWalletsOf(chain) !== "discovered") return Promise.resolve();
    const chainId = chain.chain_id;
    const waits: Array<Promise<void>> = [];
    const unmarked = new Set<string>();
    for (const wallet of wallets) {
      const adding = this.#adding.get(`${chainId}|${wallet}`);
      if (adding !== undefined) waits.push(adding);
      else if (!this.records(chain, wallet)) unmarked.add(wallet);
    }
    const fresh = [...unmarked];
    if (fresh.length > 0) {
      const stored = this.#store(chainId, fresh).finally(() => {
        for (const wallet of fresh) this.#adding.delete(`${chainId}|${wallet}`);
      });
      for (const wallet of fresh) this.#adding.set(`${chainId}|${wallet}`, stored);
      waits.push(stored);
    }
    return Promise.all(waits).then(() => undefined);
  }

  async #store(chainId: number, wallets: ReadonlyArray<string>): Promise<void> {
    // Marked first, in the same step as the planning count is read: a block whose planning begins
    // after this records the wallets, and every other one is at or below the count or the checkpoint.
    const planned = this.#planning.get(chainId) ?? -1;
    for (const wallet of wallets) this.#mark(chainId, wallet, Number.MAX_SAFE_INTEGER);
    try {
      // Read at once (getSync) where the store is open: a wallet's first request marks it on every
      // chain, and each read through LevelDB's thread pool queued behind the others' sweeps.
      const [checkpoint] = (await readNow(this.db, [indexCheckpointKey(chainId)])) as [
        IndexCheckpoint | undefined,
      ];
      const from = Math.max(planned, checkpoint?.number ?? -1) + 1;
      await this.#write(
        wallets.map((wallet) => ({
          type: "put" as const,
          key: indexedWalletKey(chainId, wallet),
          value: from,
        })),
      );
      for (const wallet of wallets) this.#mark(chainId, wallet, from);
    } catch (error) {
      // Not stored: a later start of a wallet's discovery marks it again (what was recorded meanwhile stays).
      for (const wallet of wallets) this.#marked.get(chainId)?.delete(wallet);
      throw error;
    }
  }

  /** Marks waiting for the next batch (`#write`), and that batch once it is due. */
  #queued: Array<{ readonly type: "put"; readonly key: string; readonly value: number }> = [];
  #flush: Promise<void> | undefined;

  /**
   * Stores marks in one batch with every other mark made in the same turn of the event loop: a
   * wallet's first request marks it on each chain it reads, one after another, and a batch each
   * cost that request's thread as much as its LevelDB reads.
   */
  #write(ops: ReadonlyArray<{ readonly type: "put"; readonly key: string; readonly value: number }>) {
    this.#queued.push(...ops);
    this.#flush ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      const batch = this.#queued;
      this.#queued = [];
      this.#flush = undefined;
      return this.db.batch(batch);
    });
    return this.#flush;
  }

  /**
   * The first block from which the index holds the wallet's token touches on the chain, given where
   * the chain's index starts (`indexedFrom`): its log scan reads the history below it. Undefined
   * while a wallet of a chain indexed for discovered wallets only is not marked yet.
   */
  firstRecorded(chain: ChainConfig, wallet: string, indexedFrom: number): number | undefined {
    if (indexWalletsOf(chain) === "discovered") {
      const from = this.#marked.get(chain.chain_id)?.get(wallet);
      return from === undefined || from === Number.MAX_SAFE_INTEGER ? undefined : Math.max(from, indexedFrom);
    }
    return Math.max(indexedFrom, this.#allFrom.get(chain.chain_id) ?? 0);
  }

  /** Whether the index may lack touches of wallets it never met since its start: discovery is needed even on a whole history. */
  partial(chain: ChainConfig): boolean {
    return indexWalletsOf(chain) === "discovered" || (this.#allFrom.get(chain.chain_id) ?? 0) > 0;
  }

  /** `partial` by chain id, for the chains it was loaded with (status lines that hold no chain config). */
  partialOn(chainId: number): boolean {
    return this.#discoveredChains.has(chainId) || (this.#allFrom.get(chainId) ?? 0) > 0;
  }

  /** Wallets marked on the chain (for status and tests). */
  marked(chainId: number): number {
    return this.#marked.get(chainId)?.size ?? 0;
  }

  /**
   * On a chain indexed for discovered wallets only, how many wallets the index records touches of
   * (`indexed_wallets` in /healthz and the operator's chain status); undefined on other chains.
   */
  recordedWallets(chainId: number): number | undefined {
    return this.#discoveredChains.has(chainId) ? this.marked(chainId) : undefined;
  }
}
