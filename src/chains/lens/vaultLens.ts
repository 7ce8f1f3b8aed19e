import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hex } from "viem";
import { lensCode } from "../../lib/lensCode.js";
import type { RawCall } from "../multicall3.js";
import { rawCall } from "../rawCalls.js";

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), "VaultLens.sol");

/**
 * Where VaultLens.sol's code is placed by state override: the last 20 bytes of
 * keccak256("wallet-data-service/VaultLens"), an address with no code on any chain.
 */
export const VAULT_LENS_ADDRESS = "0xba9c739abd31e8a9f375111631c0f49be853af07";

/** Runtime code of VaultLens.sol, compiled on first use and cached (see `lensCode`). */
export const vaultLensCode = (): Promise<Hex> => lensCode(SOURCE, "VaultLens");

/** `probe(token)`: fails unless the token answers like an ERC-4626 vault. */
export const vaultProbeCall = (code: Hex, token: string): RawCall => ({
  ...rawCall(VAULT_LENS_ADDRESS, "probe(address)", token),
  code,
});

/** `position(vault, account)`: the account's shares and their `convertToAssets`. */
export const vaultPositionCall = (code: Hex, vault: string, account: string): RawCall => ({
  ...rawCall(VAULT_LENS_ADDRESS, "position(address,address)", vault, account),
  code,
});

/** `assetsOf(vault, shares)`: `convertToAssets(shares)` with the lens's gas cap. */
export const vaultAssetsCall = (code: Hex, vault: string, shares: bigint): RawCall => ({
  ...rawCall(VAULT_LENS_ADDRESS, "assetsOf(address,uint256)", vault, shares),
  code,
});
