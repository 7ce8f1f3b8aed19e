import type { Position } from "../../contracts/Positions.js";
import type { LendingMarket } from "./lendingMarkets.js";

/**
 * A wallet's entries of one market among its positions, as the positions endpoint names them: an
 * Aave entry by its `lending_pool`, a Comet entry by its `market`, and a cToken entry (which names
 * only its cToken) by the comptroller `comptrollerOf` its cToken.
 */
export const marketEntries = (
  positions: ReadonlyArray<Position>,
  market: LendingMarket,
  comptrollerOf: (cToken: string) => string | undefined,
): ReadonlyArray<Position> =>
  positions.filter((p) =>
    market.design === "aave"
      ? "lending_pool" in p && p.lending_pool === market.address
      : market.design === "comet"
        ? p.type === "LendingV3" && p.market === market.address
        : (p.type === "LendingV2" || p.type === "LendingV2Fork") && comptrollerOf(p.token) === market.address,
  );

/** The cTokens of the cToken entries among `positions`: whose comptrollers marketEntries needs. */
export const cTokensOf = (positions: ReadonlyArray<Position>): ReadonlyArray<string> => [
  ...new Set(
    positions.flatMap((p) => (p.type === "LendingV2" || p.type === "LendingV2Fork" ? [p.token] : [])),
  ),
];
