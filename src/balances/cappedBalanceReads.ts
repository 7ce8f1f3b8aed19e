import { balanceOfCall, decodeBalance } from "../chains/balanceReads.js";
import { aggregate3, type RawCall, type RawResult } from "../chains/multicall3.js";
import type { BlockRef } from "../chains/readEachChain.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import { decodeSweep, sweepCall, sweepLensCode } from "../discovery/lens/sweepLens.js";
import { SWEEP_BATCH } from "../discovery/sweepBalances.js";

/** One wallet's balance of one ERC-20. */
export interface BalancePair {
  readonly wallet: string;
  readonly token: string;
}

/** The calls that read a list of balances inside an aggregate3, and how to read their results. */
export interface CappedBalanceReads {
  readonly calls: ReadonlyArray<RawCall>;
  /**
   * Each pair's balance, in the order given, from the results of `calls` (in order) read at
   * `block`: 0 where the token's `balanceOf` failed, as a plain read's failure was taken before.
   */
  readonly amounts: (results: ReadonlyArray<RawResult>, block: BlockRef) => Promise<ReadonlyArray<bigint>>;
}

/**
 * ERC-20 balances read through the sweep lens, each `balanceOf` with a gas cap of its own, inside
 * the caller's aggregate3. Anyone can make a wallet touch a token (a contract that emits a Transfer
 * naming it), and one whose `balanceOf` burns all the gas it is given takes 63/64 of what is left
 * in a plain aggregate3: three of them made a whole read run out of gas, so a wallet's balances, or
 * a block's balance webhooks, failed. One lens call per wallet and `SWEEP_BATCH` tokens. A lens
 * answer that cannot be read (a node that ignores state overrides answers an empty lens with no
 * data; the lens stops when the gas left cannot give the next token its allowance, after hundreds
 * of tokens that burn theirs) is read again with a plain `balanceOf` each, at the same block, as before.
 * The calls do not depend on the block: one set serves reads at several blocks.
 */
export const cappedBalanceReads = async (
  rpc: ChainRpc,
  pairs: ReadonlyArray<BalancePair>,
): Promise<CappedBalanceReads> => {
  if (pairs.length === 0) return { calls: [], amounts: async () => [] };
  const code = await sweepLensCode();
  const byWallet = new Map<string, Array<number>>();
  pairs.forEach((pair, i) => {
    const list = byWallet.get(pair.wallet) ?? [];
    list.push(i);
    byWallet.set(pair.wallet, list);
  });
  const parts: Array<{ readonly wallet: string; readonly pairs: ReadonlyArray<number> }> = [];
  for (const [wallet, indexes] of byWallet)
    for (let i = 0; i < indexes.length; i += SWEEP_BATCH)
      parts.push({ wallet, pairs: indexes.slice(i, i + SWEEP_BATCH) });
  const tokensOf = (part: (typeof parts)[number]) => part.pairs.map((i) => pairs[i]!.token);
  return {
    calls: parts.map((part) => sweepCall(code, part.wallet, tokensOf(part))),
    amounts: async (results, block) => {
      const out = new Array<bigint>(pairs.length).fill(0n);
      await Promise.all(
        parts.map(async (part, j) => {
          const tokens = tokensOf(part);
          let read = decodeSweep(results[j], tokens.length);
          if (read === undefined) {
            const plain = await aggregate3(
              rpc,
              tokens.map((token) => balanceOfCall(token, part.wallet)),
              { block },
            );
            read = plain.map((result) => decodeBalance(result) ?? 0n);
          }
          read.forEach((amount, k) => {
            out[part.pairs[k]!] = amount;
          });
        }),
      );
      return out;
    },
  };
};
