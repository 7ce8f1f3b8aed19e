import { aggregate3 } from "../../chains/multicall3.js";
import { rawCall, uintWord } from "../../chains/rawCalls.js";
import type { ChainRpc } from "../../chains/rpc/ChainRpc.js";

/** `healthFactor` of an account without debt: type(uint256).max. */
const NO_DEBT = (1n << 256n) - 1n;

/** One account's health factor in one pool, as the pool itself answers it; `null` without debt. */
export interface HealthRead {
  readonly wallet: string;
  readonly pool: string;
  readonly healthFactor: number | null;
}

/**
 * Every (pool, wallet) account's health factor at `block`, pinned by hash: ONE Multicall3
 * aggregate3 of the pools' `getUserAccountData` for all of them (split into several eth_calls at
 * the same block only when the batch is too large for one). The value is the one the positions
 * endpoint shows (aaveTokens.ts): the 18-decimal word as a number. Accounts whose call failed are
 * left out rather than read as healthy.
 */
export const readHealthFactors = async (
  rpc: ChainRpc,
  accounts: ReadonlyArray<{ readonly wallet: string; readonly pool: string }>,
  block: { readonly number: number; readonly hash: string },
): Promise<ReadonlyArray<HealthRead>> => {
  const results = await aggregate3(
    rpc,
    accounts.map((a) => rawCall(a.pool, "getUserAccountData(address)", a.wallet)),
    { block },
  );
  return accounts.flatMap((account, i) => {
    const health = uintWord(results[i], 5);
    if (health === undefined) return [];
    return [{ ...account, healthFactor: health === NO_DEBT ? null : Number(health) / 1e18 }];
  });
};
