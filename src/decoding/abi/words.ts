/**
 * Readers for 32-byte ABI words inside lower-case 0x-hex strings (log data and topics). They slice
 * the string instead of converting to bytes: decoding reads a handful of words per log, and a slice
 * plus `BigInt` is cheaper than a byte array. Callers check lengths first (`wordCount`).
 */

/** Hex characters per 32-byte word. */
const WORD = 64;

/** Whole 32-byte words in `data` (0x-prefixed hex). */
export const wordCount = (data: string): number => (data.length < 2 ? 0 : (data.length - 2) >> 6);

/** Word `i` of `data` as an unsigned integer. */
export const uintAt = (data: string, i: number): bigint =>
  BigInt(`0x${data.slice(2 + i * WORD, 66 + i * WORD)}`);

/** Word `i` of `data` as a two's-complement signed integer (every intN is sign-extended to 256 bits). */
export const intAt = (data: string, i: number): bigint => BigInt.asIntN(256, uintAt(data, i));

/** Word `i` of `data` as a lower-case address (its low 20 bytes). */
export const addressAt = (data: string, i: number): string => `0x${data.slice(26 + i * WORD, 66 + i * WORD)}`;

/** Word `i` of `data` as 0x + 64 hex (bytes32). */
export const bytes32At = (data: string, i: number): string => `0x${data.slice(2 + i * WORD, 66 + i * WORD)}`;

/**
 * Word `i` of `data` as a signed integer of at most 32 bits (int24 ticks): the low 8 hex digits read as
 * int32, which equals the value because ABI encoding sign-extends it.
 */
export const smallIntAt = (data: string, i: number): number =>
  Number.parseInt(data.slice(58 + i * WORD, 66 + i * WORD), 16) | 0;

/** Word `i` of `data` as an unsigned integer of at most 32 bits (uint24 fees). */
export const smallUintAt = (data: string, i: number): number =>
  Number.parseInt(data.slice(58 + i * WORD, 66 + i * WORD), 16);

/** Word `i` of `data` as a bool: any non-zero word is true, as Solidity reads it. */
export const boolAt = (data: string, i: number): boolean => uintAt(data, i) !== 0n;

/** An indexed address topic (0x + 64 hex) as a lower-case address. */
export const topicAddress = (topic: string): string => `0x${topic.slice(26)}`;

/** An indexed int24 topic as a number. */
export const topicSmallInt = (topic: string): number => Number.parseInt(topic.slice(58), 16) | 0;

/** An indexed uint24 topic as a number. */
export const topicSmallUint = (topic: string): number => Number.parseInt(topic.slice(58), 16);

/** An indexed uint256 topic. */
export const topicUint = (topic: string): bigint => BigInt(topic);
