import { uintWord } from "../../chains/rawCalls.js";
import type { ChainRpc } from "../../chains/rpc/ChainRpc.js";
import { lendingLensCode } from "../../positions/lens/lendingLens.js";
import { aggregateInWaves } from "./aggregateInWaves.js";
import { cometDebtCall, decodeHealth, type HealthAccount, healthCall } from "./healthCalls.js";

/** One account's health factor in one market, as the market itself answers it; `null` without debt. */
export interface HealthRead {
  readonly wallet: string;
  /** The market's registry address: Aave pool, comptroller or Comet. */
  readonly pool: string;
  readonly healthFactor: number | null;
}

/** Whether an account is asked its debt first rather than its health factor (HealthAccount.probe). */
const probed = (account: HealthAccount) => account.design === "comet" && account.probe === true;

/**
 * Every account's health factor at `block`, pinned by hash: ONE Multicall3 aggregate3 of every
 * account's health call (healthCalls.ts), Aave pools, comptrollers and Comets alike (split into
 * several eth_calls at the same block only when the batch is too large for one, a few at a time:
 * aggregateInWaves.ts). A probed Comet
 * account is asked its debt in that multicall instead; those with debt are asked the lens in a
 * second one at the same block, the others answer `null` as the lens would. The values are the ones
 * the positions endpoint shows. Accounts whose call failed are left out rather than read as healthy.
 */
export const readHealthFactors = async (
  rpc: ChainRpc,
  accounts: ReadonlyArray<HealthAccount>,
  block: { readonly number: number; readonly hash: string },
): Promise<ReadonlyArray<HealthRead>> => {
  if (accounts.length === 0) return [];
  // The lens is compiled once per process; an Aave-only chain never needs it.
  const lens = accounts.some((a) => a.design !== "aave") ? await lendingLensCode() : "0x";
  const first = await aggregateInWaves(
    rpc,
    accounts.map((a) => (probed(a) ? cometDebtCall(a) : healthCall(a, lens))),
    block,
  );
  // A failed probe is asked the lens too: it decides, as for any account.
  const indebted = accounts.flatMap((a, i) => (probed(a) && uintWord(first[i], 0) !== 0n ? [i] : []));
  const second =
    indebted.length === 0
      ? []
      : await aggregateInWaves(
          rpc,
          indebted.map((i) => healthCall(accounts[i]!, lens)),
          block,
        );
  const lensAnswer = new Map(indebted.map((at, j) => [at, second[j]]));
  return accounts.flatMap((account, i) => {
    const healthFactor = !probed(account)
      ? decodeHealth(account.design, first[i])
      : lensAnswer.has(i)
        ? decodeHealth(account.design, lensAnswer.get(i))
        : null;
    return healthFactor === undefined ? [] : [{ wallet: account.wallet, pool: account.pool, healthFactor }];
  });
};
