import { DEPLOYED_TOKENS, type TokenSymbol } from "./tokenSpecs.js";

/** Decimals of a devnet token by symbol (WETH is 18). */
export const tokenDecimals = (symbol: TokenSymbol): number =>
  symbol === "WETH" ? 18 : (DEPLOYED_TOKENS.find((t) => t.symbol === symbol)?.decimals ?? 18);
