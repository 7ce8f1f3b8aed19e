import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hex } from "viem";
import type { RawCall } from "../../chains/multicall3.js";
import { rawCall } from "../../chains/rawCalls.js";
import { lensCode } from "../../lib/lensCode.js";

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), "RestakeLens.sol");

/**
 * Where RestakeLens.sol's code is placed by state override: the last 20 bytes of
 * keccak256("wallet-data-service/RestakeLens"), an address with no code on any chain.
 */
export const RESTAKE_LENS_ADDRESS = "0x52342c6df1291d752329f20680b516791b244c6c";

/** Runtime code of RestakeLens.sol, compiled on first use and cached (see `lensCode`). */
export const restakeLensCode = (): Promise<Hex> => lensCode(SOURCE, "RestakeLens");

/** `stake(manager, strategy, staker)`: the staker's shares and `sharesToUnderlyingView` of them. */
export const restakeStakeCall = (code: Hex, manager: string, strategy: string, staker: string): RawCall => ({
  ...rawCall(RESTAKE_LENS_ADDRESS, "stake(address,address,address)", manager, strategy, staker),
  code,
});

/** `operatorOf(manager, staker)`: the operator the staker is delegated to. */
export const restakeOperatorCall = (code: Hex, manager: string, staker: string): RawCall => ({
  ...rawCall(RESTAKE_LENS_ADDRESS, "operatorOf(address,address)", manager, staker),
  code,
});
