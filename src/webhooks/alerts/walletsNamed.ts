import type { ChainBlock } from "../../domain/ChainBlock.js";

/** The 24 zero hex digits that pad an address to an ABI word. */
const ADDRESS_PAD = "000000000000000000000000";

/**
 * The wallets of `wallets` that `block` involves: the sender of one of its transactions, or an
 * address named by one of its logs, in a topic or as a word of its data. Every way a lending market
 * gives an account debt names the account in the market's own log, and not always in a topic:
 * Compound V2's `Borrow(borrower, ...)` and `MarketEntered(cToken, account)` carry it in the data,
 * and a smart-contract wallet borrows without sending the transaction itself. Scanning every word
 * also names wallets that merely appear as amounts' neighbours; they are read once more, no harm.
 */
export const walletsNamed = (block: ChainBlock, wallets: ReadonlySet<string>): ReadonlySet<string> => {
  const named = new Set<string>();
  // The word of `hex` at `at` (64 digits), if it is a watched address; no slice for other words.
  const check = (hex: string, at: number) => {
    if (!hex.startsWith(ADDRESS_PAD, at)) return;
    const address = `0x${hex.slice(at + 24, at + 64)}`;
    if (wallets.has(address)) named.add(address);
  };
  for (const tx of block.transactions) if (wallets.has(tx.from)) named.add(tx.from);
  for (const log of block.logs) {
    for (let i = 1; i < log.topics.length; i++) check(log.topics[i]!, 2);
    for (let at = 2; at + 64 <= log.data.length; at += 64) check(log.data, at);
  }
  return named;
};
