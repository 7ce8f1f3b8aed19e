import type { Hex } from "viem";
import { EVENT_TOPICS } from "../../src/decoding/index.js";
import { devAccount } from "../../src/devnet/devAccounts.js";
import { MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE } from "../../src/devnet/multicall3.js";
import { MANY_LOGS_CODE, manyLogsCalldata } from "../../test/support/logEmitters.js";
import { hex, nodeRequest } from "./nodeRequest.js";

/** A stand-in V2 factory: it emits the `PairCreated` its calldata spells, and nothing else. */
export const REGISTRY_FACTORY = "0x000000000000000000000000000000000000fac2";
/** Tokens the pairs pair: each answers every call with the word 18 (so `decimals()` is 18). */
export const REGISTRY_TOKENS = [
  "0x00000000000000000000000000000000000a0001",
  "0x00000000000000000000000000000000000a0002",
  "0x00000000000000000000000000000000000a0003",
];
/** Noise: another contract's logs in the same blocks, which an address-filtered read never sees. */
const NOISE = "0x000000000000000000000000000000000000b0b5";
const FROM = devAccount(0).address;

/**
 * Emits LOG3(topic0 = PairCreated, topic1 = calldata word 0, topic2 = word 1, data = words 2 and 3):
 *   PUSH1 64 PUSH1 64 PUSH1 0 CALLDATACOPY   (memory 0..64 = pair, count)
 *   PUSH1 32 CALLDATALOAD PUSH1 0 CALLDATALOAD PUSH32 <PairCreated> PUSH1 64 PUSH1 0 LOG3 STOP
 */
const FACTORY_CODE: Hex = `0x604060406000376020356000357f${EVENT_TOPICS.v2PairCreated.slice(2)}60406000a300`;
/** PUSH1 18 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const TOKEN_CODE: Hex = "0x601260005260206000f3";

const word = (value: string | number) =>
  (typeof value === "number" ? value.toString(16) : value.slice(2)).padStart(64, "0");

/** Pair `i`'s address. */
export const registryPair = (i: number) => `0x${(0x100000 + i).toString(16).padStart(40, "0")}`;

/**
 * Grows a bare anvil (automine on) by `blocks` blocks shaped like a factory's history on a busy
 * chain: every `every`-th block holds one `PairCreated` of the stand-in factory and `noise` logs of
 * another contract, the rest are empty; Multicall3 is placed at its address. Returns
 * the head and the counts.
 */
export const mineRegistryHistory = async (
  url: string,
  options: { readonly blocks: number; readonly every: number; readonly noise: number },
): Promise<{ readonly head: number; readonly pairs: number; readonly noiseLogs: number }> => {
  // The backfill reads pool tokens' metadata through Multicall3, which a bare anvil lacks.
  await nodeRequest(url, "anvil_setCode", [MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE]);
  await nodeRequest(url, "anvil_setCode", [REGISTRY_FACTORY, FACTORY_CODE]);
  await nodeRequest(url, "anvil_setCode", [NOISE, MANY_LOGS_CODE]);
  for (const token of REGISTRY_TOKENS) await nodeRequest(url, "anvil_setCode", [token, TOKEN_CODE]);
  // Both transactions of a round go into one block: mining per transaction (automine) is what
  // makes a long history slow to set up.
  await nodeRequest(url, "evm_setAutomine", [false]);
  let pairs = 0;
  let noiseLogs = 0;
  for (let mined = 0; mined + 1 <= options.blocks; mined += options.every) {
    const a = REGISTRY_TOKENS[pairs % 3]!;
    const b = REGISTRY_TOKENS[(pairs + 1) % 3]!;
    const [token0, token1] = a < b ? [a, b] : [b, a];
    await nodeRequest(url, "eth_sendTransaction", [
      {
        from: FROM,
        to: REGISTRY_FACTORY,
        data: `0x${word(token0)}${word(token1)}${word(registryPair(pairs))}${word(pairs + 1)}`,
      },
    ]);
    pairs++;
    await nodeRequest(url, "eth_sendTransaction", [
      { from: FROM, to: NOISE, data: manyLogsCalldata(options.noise) },
    ]);
    noiseLogs += options.noise;
    await nodeRequest(url, "anvil_mine", [hex(Math.min(options.every, options.blocks - mined))]);
  }
  await nodeRequest(url, "evm_setAutomine", [true]);
  const head = Number.parseInt(await nodeRequest<string>(url, "eth_blockNumber"), 16);
  if (head < options.blocks) await nodeRequest(url, "anvil_mine", [hex(options.blocks - head)]);
  return { head: Math.max(head, options.blocks), pairs, noiseLogs };
};
