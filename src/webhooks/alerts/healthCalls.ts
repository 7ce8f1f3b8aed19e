import type { Hex } from "viem";
import type { RawCall, RawResult } from "../../chains/multicall3.js";
import { rawCall, uintWord } from "../../chains/rawCalls.js";
import {
  cometAccountCall,
  cTokenAccountCall,
  decodeStanding,
  healthFactor,
} from "../../positions/lens/lendingLens.js";
import type { HealthDesign } from "./lendingMarkets.js";

/** `healthFactor` of an Aave account without debt: type(uint256).max. */
const NO_DEBT = (1n << 256n) - 1n;

/** One wallet's account in one market. */
export interface HealthAccount {
  readonly wallet: string;
  /** The market's registry address: Aave pool, comptroller or Comet (LendingMarket.address). */
  readonly pool: string;
  readonly design: HealthDesign;
  /**
   * Not known to have debt: a Comet account is then first asked `borrowBalanceOf` alone, and only
   * one with debt pays the lens's whole computation (readHealthFactors.ts).
   */
  readonly probe?: boolean;
}

/**
 * The call that tells whether a Comet account has debt, much cheaper than the lens (which loops
 * over every collateral asset and reads prices and rates): `borrowBalanceOf`, zero without debt.
 */
export const cometDebtCall = (account: HealthAccount): RawCall =>
  rawCall(account.pool, "borrowBalanceOf(address)", account.wallet);

/**
 * The call that answers an account's health factor, the one the positions endpoint makes: the
 * pool's `getUserAccountData` for Aave (aaveTokens.ts), LendingLens's `cTokenAccount` or
 * `cometAccount` for the others (cTokenMarkets.ts, cometMarkets.ts), whose runtime code `lens`
 * rides along as a state override.
 */
export const healthCall = (account: HealthAccount, lens: Hex): RawCall => {
  switch (account.design) {
    case "aave":
      return rawCall(account.pool, "getUserAccountData(address)", account.wallet);
    case "ctoken":
      return cTokenAccountCall(lens, account.pool, account.wallet);
    case "comet":
      return cometAccountCall(lens, account.pool, account.wallet);
  }
};

/**
 * The health factor an answer gives, as the positions endpoint computes it from the same answer:
 * `null` without debt, undefined when the call failed (not read as healthy).
 */
export const decodeHealth = (
  design: HealthDesign,
  result: RawResult | undefined,
): number | null | undefined => {
  if (design !== "aave") return healthFactor(decodeStanding(result));
  const health = uintWord(result, 5);
  return health === undefined ? undefined : health === NO_DEBT ? null : Number(health) / 1e18;
};
