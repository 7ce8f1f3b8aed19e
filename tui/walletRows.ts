import type { BalanceEntry } from "../src/contracts/Balances.js";
import type { Position } from "../src/contracts/Positions.js";
import { compact } from "./format.js";

/** USD with two decimals under 100k, compact above; `-` without a price. */
export const usd = (value: number | undefined): string =>
  value === undefined ? "-" : Math.abs(value) < 1e5 ? value.toFixed(2) : compact(value);

/** A raw integer amount in whole tokens, compact (`1.5`, `2.5k`); raw when the decimals are unknown. */
export const wholeUnits = (amount: string, decimals: number | undefined): string => {
  if (decimals === undefined) return amount.length > 8 ? `${amount.slice(0, 7)}…` : amount;
  const value = Number(amount) / 10 ** decimals;
  return value > 0 && value < 0.001 ? "<0.001" : compact(Math.round(value * 1000) / 1000);
};

/** `0x1234…abcd`. */
export const shortAddress = (address: string) =>
  address.length === 42 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;

/** CHAIN, TOKEN, AMOUNT, PRICE, USD of each holding, largest USD value first (unpriced last). */
export const balanceCells = (entries: ReadonlyArray<BalanceEntry>): ReadonlyArray<ReadonlyArray<string>> =>
  [...entries]
    .sort((a, b) => (b.value_usd ?? -1) - (a.value_usd ?? -1))
    .map((entry) => [
      entry.chain,
      entry.symbol ?? shortAddress(entry.address),
      wholeUnits(entry.amount, entry.decimals),
      usd(entry.price_usd),
      usd(entry.value_usd),
    ]);

/** What a position holds, in a few characters: its pair, its token, or its market's base token. */
const assets = (position: Position): string => {
  switch (position.type) {
    case "AmmV2":
    case "Nft":
    case "NftV4":
      return `${position.token0_symbol ?? shortAddress(position.token0)}/${position.token1_symbol ?? shortAddress(position.token1)}`;
    case "LendingV3":
      return `${position.base_token_symbol ?? shortAddress(position.base_token)}${position.collateral.length > 0 ? ` +${position.collateral.length} coll.` : ""}`;
    case "RestakeStrategy":
      return position.underlying_token_symbol ?? shortAddress(position.underlying_token);
    default:
      return position.token_symbol ?? shortAddress(position.token);
  }
};

/** The protocol, or for lending tokens their kind (`VariableDebtV3`). */
const protocolOf = (position: Position): string =>
  "protocol" in position ? position.protocol : "token_type" in position ? position.token_type : "-";

/** CHAIN, TYPE, PROTOCOL, ASSETS, USD of each position, largest absolute USD value first. */
export const positionCells = (
  positions: ReadonlyArray<Position>,
  chainNames: ReadonlyMap<number, string>,
): ReadonlyArray<ReadonlyArray<string>> =>
  [...positions]
    .sort((a, b) => Math.abs(b.usd_value ?? 0) - Math.abs(a.usd_value ?? 0))
    .map((position) => [
      chainNames.get(position.chain_id) ?? String(position.chain_id),
      position.type,
      protocolOf(position),
      assets(position),
      usd(position.usd_value),
    ]);
