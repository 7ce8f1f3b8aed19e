import type { Hex } from "viem";

/**
 * Runtime code of tiny contracts that emit logs when called, to set with `anvil_setCode`: a chain with
 * logs exactly where a test wants them, without compiling anything.
 */

/** The topic every log of `ONE_LOG_CODE` carries. */
export const ONE_LOG_TOPIC: Hex = `0x${"ab".repeat(32)}`;

/** Emits one LOG1 with `ONE_LOG_TOPIC` and no data per call: PUSH32 topic, PUSH1 0, PUSH1 0, LOG1, STOP. */
export const ONE_LOG_CODE: Hex = `0x7f${"ab".repeat(32)}60006000a100`;

/**
 * Emits N empty LOG0s per call, N being the first calldata word: a loop of about 420 gas per log, so
 * 6,000 logs fit one transaction well under a 30M block gas limit.
 *   0 PUSH1 0  2 CALLDATALOAD  3 JUMPDEST  4 DUP1  5 ISZERO  6 PUSH1 0x15  8 JUMPI
 *   9 PUSH1 0  11 PUSH1 0  13 LOG0  14 PUSH1 1  16 SWAP1  17 SUB  18 PUSH1 3  20 JUMP
 *   21 JUMPDEST  22 STOP
 */
export const MANY_LOGS_CODE: Hex = "0x6000355b801560155760006000a0600190036003565b00";

/** Calldata asking `MANY_LOGS_CODE` for `count` logs. */
export const manyLogsCalldata = (count: number): Hex => `0x${count.toString(16).padStart(64, "0")}`;
