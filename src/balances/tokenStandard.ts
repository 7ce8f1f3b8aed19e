import { type Hex, toFunctionSelector } from "viem";
import type { RawCall, RawResult } from "../chains/multicall3.js";

/** What a contract asked for by address turned out to be, as far as balances are concerned. */
export type TokenStandard = "erc20" | "erc721" | "erc1155" | "no_balance_of";

const SUPPORTS_INTERFACE = toFunctionSelector("supportsInterface(bytes4)");
/** ERC-165 ids. `0xffffffff` must be refused by an honest ERC-165 contract (EIP-165, "How to detect"). */
const INVALID_ID = "ffffffff";
const ERC721_ID = "80ac58cd";
const ERC1155_ID = "d9b67a26";

const supportsInterface = (token: string, id: string): RawCall => ({
  target: token,
  callData: `${SUPPORTS_INTERFACE}${id.padEnd(64, "0")}` as Hex,
});

/**
 * The ERC-165 reads that tell an NFT contract from an ERC-20, to go in the same
 * multicall as the balance (no extra eth_call): the invalid id, ERC-721, ERC-1155.
 */
export const standardProbeCalls = (token: string): ReadonlyArray<RawCall> => [
  supportsInterface(token, INVALID_ID),
  supportsInterface(token, ERC721_ID),
  supportsInterface(token, ERC1155_ID),
];

/** An ABI `bool` true: exactly one 32-byte word holding 1. */
const saysTrue = (result: RawResult | undefined) =>
  result?.success === true && result.returnData.length === 66 && BigInt(result.returnData) === 1n;

/**
 * Classifies a token from its `balanceOf` result and the three probe results.
 * ERC-721 and ERC-1155 contracts declare themselves through ERC-165 (an ERC-721
 * also answers `balanceOf(address)`, with a count of NFTs); a contract that
 * claims every interface, the invalid one included, is taken at its balance.
 * No usable `balanceOf(address)` (no code there, an ERC-1155) is not an ERC-20.
 */
export const classifyToken = (
  balanceOf: RawResult | undefined,
  probes: ReadonlyArray<RawResult>,
): TokenStandard => {
  const [invalid, erc721, erc1155] = probes;
  const honest = !saysTrue(invalid);
  if (honest && saysTrue(erc721)) return "erc721";
  if (honest && saysTrue(erc1155)) return "erc1155";
  const usable = balanceOf?.success === true && balanceOf.returnData.length >= 66;
  return usable ? "erc20" : "no_balance_of";
};
