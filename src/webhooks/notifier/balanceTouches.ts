import type { TransactionMoves } from "./blockParties.js";

/** A fungible balance of a subscribed wallet the block may have changed, with the movement behind it. */
export interface BalanceTouch {
  readonly wallet: string;
  /** ERC-20 contract, or `native`. */
  readonly token: string;
  /** The last transaction of the block that moved it (for native, gas alone counts). */
  readonly transactionHash: string;
  /** The other side of that movement (for gas alone, the transaction's target). */
  readonly counterparty: string | null;
}

/**
 * Native and ERC-20 balances of `addresses` touched by a block: every
 * movement to or from them, and for native also every transaction they sent
 * (gas). ERC-721 and ERC-1155 holdings are not balances here; `activities`
 * webhooks report them. Keyed `<wallet>|<token>`, the last movement winning.
 */
export const balanceTouches = (
  moves: ReadonlyArray<TransactionMoves>,
  addresses: ReadonlySet<string>,
): ReadonlyMap<string, BalanceTouch> => {
  const out = new Map<string, BalanceTouch>();
  const touch = (wallet: string, token: string, transactionHash: string, counterparty: string | null) => {
    if (addresses.has(wallet))
      out.set(`${wallet}|${token}`, { wallet, token, transactionHash, counterparty });
  };
  for (const { tx, movements } of moves) {
    touch(tx.from, "native", tx.hash, tx.to ?? tx.contract_address);
    for (const m of movements) {
      if (m.assetType !== "native" && m.assetType !== "erc20") continue;
      touch(m.from, m.token, tx.hash, m.to);
      touch(m.to, m.token, tx.hash, m.from);
    }
  }
  return out;
};
