import type { HealthAccount } from "./healthCalls.js";
import type { MovedMarkets } from "./healthInputs.js";
import type { LendingMarket } from "./lendingMarkets.js";
import type { HealthRead } from "./readHealthFactors.js";

/**
 * What this process knows of the debts of a chain's watched wallets, true at one block. An account
 * without debt has no health factor and cannot cross below a threshold; it only gets debt through
 * a log of its market that names it (walletsNamed.ts), so once read it is not read again until a
 * block names it. Kept in memory only: a restart, or a block that does not continue it, reads every
 * account again (one full read) and starts over.
 */
export interface KnownDebts {
  /** Hash of the block it is true at: only a block whose parent this is may rely on it. */
  readonly at: string;
  /** marketsKey of the markets it covers. */
  readonly markets: string;
  /**
   * Per wallet read in every market, the markets where it has debt (empty: none). A wallet absent is
   * unknown: never read, or a read of it failed.
   */
  readonly debts: ReadonlyMap<string, ReadonlyArray<LendingMarket>>;
  /** The watched wallets `debts` holds no others of (the same Set while no list changes). */
  readonly wallets: ReadonlySet<string>;
}

/** What is read of one wallet at a block: every market (`whole`), or some where it has debt. */
export interface WalletReads {
  readonly wallet: string;
  readonly markets: ReadonlyArray<LendingMarket>;
  readonly whole: boolean;
}

const NONE: ReadonlyArray<LendingMarket> = [];

/**
 * What to read at a block that moved `moved` and names `involved`: with nothing known (`known`
 * undefined), every wallet in every market; otherwise every market of a wallet the block names or
 * that is unknown, and each market where a wallet has debt if the block moved it. A wallet known
 * to have no debt and not named is not read: its health factor stays `null`.
 */
export const selectReads = (
  known: KnownDebts | undefined,
  wallets: Iterable<string>,
  markets: ReadonlyArray<LendingMarket>,
  involved: ReadonlySet<string>,
  moved: MovedMarkets,
): ReadonlyArray<WalletReads> => {
  const out: Array<WalletReads> = [];
  for (const wallet of wallets) {
    const debts = known?.debts.get(wallet);
    if (debts === undefined || involved.has(wallet)) out.push({ wallet, markets, whole: true });
    else if (debts.length > 0) {
      const due = moved === "all" ? debts : debts.filter((m) => moved.has(m.address));
      if (due.length > 0) out.push({ wallet, markets: due, whole: false });
    }
  }
  return out;
};

/**
 * The accounts of a selection, in one list for one multicall: those of a wallet read whole are
 * probed (asked their debt first where that is cheaper), those known to have debt are not.
 */
export const accountsOf = (selection: ReadonlyArray<WalletReads>): ReadonlyArray<HealthAccount> =>
  selection.flatMap(({ wallet, markets, whole }) =>
    markets.map((m) => ({ wallet, pool: m.address, design: m.design, probe: whole })),
  );

/**
 * The known debts after a block from the reads of `selection`. A wallet read in every market is
 * known by them; one read where it had debt drops each market that answered `null`; a wallet with a
 * read that failed becomes unknown (read whole at the next block). With `prune` (the watched
 * wallets changed), wallets no longer watched are forgotten. `debts` is updated in place: the book
 * (debtBook) hands over the map it no longer keeps.
 */
export const advanceDebts = (
  debts: Map<string, ReadonlyArray<LendingMarket>>,
  wallets: ReadonlySet<string>,
  selection: ReadonlyArray<WalletReads>,
  reads: ReadonlyArray<HealthRead>,
  prune = true,
): void => {
  const byWallet = new Map<string, Array<HealthRead>>();
  for (const read of reads) {
    const list = byWallet.get(read.wallet);
    if (list === undefined) byWallet.set(read.wallet, [read]);
    else list.push(read);
  }
  for (const { wallet, markets, whole } of selection) {
    const got = byWallet.get(wallet) ?? [];
    if (got.length < markets.length) {
      debts.delete(wallet);
      continue;
    }
    const noDebt = new Set(got.filter((r) => r.healthFactor === null).map((r) => r.pool));
    const base = whole ? markets : (debts.get(wallet) ?? markets);
    const kept = base.filter((m) => !noDebt.has(m.address));
    debts.set(wallet, kept.length === 0 ? NONE : kept);
  }
  // A wallet not watched at this block is not looked for in its logs (walletsNamed): what is known
  // of it would be stale if it were watched again.
  if (prune) for (const wallet of debts.keys()) if (!wallets.has(wallet)) debts.delete(wallet);
};

/**
 * Each chain's known debts in this process. Blocks of one chain are evaluated one after the other;
 * a block that does not continue the chain's known debts (the first after a start, one planned
 * again, or one after blocks another API process planned) gets none, and its full read starts
 * them over.
 */
export const debtBook = () => {
  const chains = new Map<number, KnownDebts>();
  const watched = new Map<
    number,
    { lists: ReadonlyArray<ReadonlyArray<string>>; set: ReadonlySet<string> }
  >();
  return {
    /**
     * The chain's watched wallets as one Set, the same Set as at the last block while every list is
     * the same array (the address book keeps a list's strings until it changes): no pass over
     * 100,000 wallets to build it, nor to forget unwatched ones, at a block where no list changed.
     */
    watched: (chainId: number, lists: ReadonlyArray<ReadonlyArray<string>>): ReadonlySet<string> => {
      const last = watched.get(chainId);
      if (
        last !== undefined &&
        last.lists.length === lists.length &&
        last.lists.every((l, i) => l === lists[i])
      )
        return last.set;
      const set = new Set(lists.flat());
      watched.set(chainId, { lists, set });
      return set;
    },
    /** The chain's known debts if `block` continues them (its parent is their block, over the same markets). */
    continuing: (
      chainId: number,
      block: { readonly parent_hash: string },
      markets: string,
    ): KnownDebts | undefined => {
      const known = chains.get(chainId);
      return known !== undefined && known.at === block.parent_hash && known.markets === markets
        ? known
        : undefined;
    },
    /**
     * Records the known debts after `block`, read from `base` (undefined: the block's full read).
     * When `base` is no longer the chain's (another block was recorded meanwhile), nothing is.
     */
    advance: (
      chainId: number,
      base: KnownDebts | undefined,
      block: { readonly hash: string },
      markets: string,
      wallets: ReadonlySet<string>,
      selection: ReadonlyArray<WalletReads>,
      reads: ReadonlyArray<HealthRead>,
    ): void => {
      if (base !== undefined && chains.get(chainId) !== base) return;
      const debts =
        base === undefined ? new Map() : (base.debts as Map<string, ReadonlyArray<LendingMarket>>);
      // A full read only adds watched wallets; known debts over the same Set hold no others.
      advanceDebts(debts, wallets, selection, reads, base !== undefined && base.wallets !== wallets);
      chains.set(chainId, { at: block.hash, markets, debts, wallets });
    },
    /** How many wallets of a chain have known debt, and how many are known: for benches and tests. */
    size: (chainId: number) => {
      const debts = chains.get(chainId)?.debts;
      let indebted = 0;
      for (const markets of debts?.values() ?? []) if (markets.length > 0) indebted += 1;
      return { known: debts?.size ?? 0, indebted };
    },
  };
};

export type DebtBook = ReturnType<typeof debtBook>;
