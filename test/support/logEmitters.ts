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

/** ERC-20's and ERC-721's `Transfer(address,address,uint256)` topic. */
const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/**
 * Emits Transfer(from, to) with `from` and `to` the two calldata words and no data, shaped as an
 * ERC-20 transfer's log (three topics): PUSH1 32 CALLDATALOAD, PUSH1 0 CALLDATALOAD, PUSH32 topic,
 * PUSH1 0, PUSH1 0, LOG3, STOP.
 */
export const TRANSFER_EMITTER_CODE: Hex = `0x6020356000357f${TRANSFER_TOPIC}60006000a300`;

/** Calldata asking `TRANSFER_EMITTER_CODE` for a transfer from `from` to `to`. */
export const transferCalldata = (from: string, to: string): Hex =>
  `0x${from.slice(2).toLowerCase().padStart(64, "0")}${to.slice(2).toLowerCase().padStart(64, "0")}`;
