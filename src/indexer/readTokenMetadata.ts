import { decodeAbiParameters, type Hex, hexToBytes, toFunctionSelector } from "viem";
import { aggregate3, type RawResult } from "../chains/multicall3.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { TokenMetadata } from "./IndexRecords.js";

const NAME = toFunctionSelector("name()");
const SYMBOL = toFunctionSelector("symbol()");
const DECIMALS = toFunctionSelector("decimals()");

/** Longest name or symbol kept; anything longer is cut (a hostile token can return kilobytes). */
export const MAX_TEXT_LENGTH = 128;
export const MAX_DECIMALS = 36;

const utf8 = new TextDecoder("utf-8", { fatal: false });

/** Removes control characters and cuts to MAX_TEXT_LENGTH; empty becomes null. */
const clean = (text: string): string | null => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed.
  const stripped = text.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return stripped.length === 0 ? null : stripped.slice(0, MAX_TEXT_LENGTH);
};

/**
 * A string from `name()`/`symbol()`: ABI `string`, or the older `bytes32` form
 * (zero-padded), or null. Invalid UTF-8 is decoded with replacement characters.
 */
export const decodeText = (result: RawResult | undefined): string | null => {
  if (result === undefined || !result.success || result.returnData === "0x") return null;
  const bytes = hexToBytes(result.returnData);
  if (bytes.length >= 64) {
    const offset = Number(BigInt(`0x${result.returnData.slice(2, 66)}`));
    const length = offset === 32 ? Number(BigInt(`0x${result.returnData.slice(66, 130)}`)) : -1;
    if (length >= 0 && 64 + length <= bytes.length)
      return clean(utf8.decode(bytes.subarray(64, 64 + length)));
  }
  if (bytes.length === 32) {
    const end = bytes.indexOf(0);
    return clean(utf8.decode(bytes.subarray(0, end === -1 ? 32 : end)));
  }
  return null;
};

/** `decimals()`: a uint (some tokens answer uint256) from 0 to MAX_DECIMALS, else null. */
export const decodeDecimals = (result: RawResult | undefined): number | null => {
  if (result === undefined || !result.success || result.returnData.length < 66) return null;
  try {
    const [value] = decodeAbiParameters([{ type: "uint256" }], result.returnData.slice(0, 66) as Hex);
    return value <= BigInt(MAX_DECIMALS) ? Number(value) : null;
  } catch {
    return null;
  }
};

const callsFor = (token: string) => [
  { target: token, callData: NAME },
  { target: token, callData: SYMBOL },
  { target: token, callData: DECIMALS },
];

const toMetadata = (results: ReadonlyArray<RawResult>, i: number): TokenMetadata => ({
  name: decodeText(results[i * 3]),
  symbol: decodeText(results[i * 3 + 1]),
  decimals: decodeDecimals(results[i * 3 + 2]),
});

/** Gas for the whole batch, and for one token when a batch fails (a gas-burning token cannot take the others down). */
const BATCH_GAS = 50_000_000n;
const SINGLE_GAS = 3_000_000n;

/**
 * Name, symbol and decimals of each token in one multicall. A call inside a
 * batch can fail only because another token starved it (a gas burner takes
 * 63/64 of what is left), so every token with a failed call is read again on
 * its own with a gas cap; if the whole batch fails, every token is. A token that
 * still fails gets nulls for what failed rather than stopping indexing.
 */
export const readTokenMetadata = async (
  client: ChainRpc,
  tokens: ReadonlyArray<string>,
): Promise<ReadonlyArray<TokenMetadata>> => {
  if (tokens.length === 0) return [];
  const alone = async (token: string): Promise<TokenMetadata> => {
    try {
      return toMetadata(await aggregate3(client, callsFor(token), { gas: SINGLE_GAS }), 0);
    } catch {
      return { name: null, symbol: null, decimals: null };
    }
  };
  let results: ReadonlyArray<RawResult>;
  try {
    results = await aggregate3(client, tokens.flatMap(callsFor), { gas: BATCH_GAS });
  } catch {
    return Promise.all(tokens.map(alone));
  }
  return Promise.all(
    tokens.map((token, i) =>
      results.slice(i * 3, i * 3 + 3).every((r) => r.success) ? toMetadata(results, i) : alone(token),
    ),
  );
};
