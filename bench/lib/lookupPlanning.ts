import { type Hex, keccak256 } from "viem";
import type { ChainConfig } from "../../src/chains/ChainsConfig.js";
import { keccak256Hex } from "../../src/lib/keccak.js";
import { lookupPairs, lookupTokens, planFactoryLookups, v4Keys } from "../../src/pricing/factoryLookups.js";
import { LOOKUP_SLICE } from "../../src/pricing/poolLookup.js";
import { encodeV4PoolKey, v4PoolId } from "../../src/pricing/standardPools.js";
import { median } from "./stats.js";

/** Token addresses no chain holds, `count` of them from `seed`. */
const syntheticTokens = (count: number, seed: number) =>
  Array.from({ length: count }, (_, i) => `0x${(seed + i).toString(16).padStart(40, "0")}`);

/**
 * What planning one factory lookup costs the thread that answers requests (poolLookup.ts plans a
 * slice of LOOKUP_SLICE tokens at a time, its V4 pool ids hashed there): p50 of `rounds` slices of
 * tokens never seen, on `chain`'s registry; and the hash of one V4 key's 160 encoded bytes as the
 * service makes it (`keccak256Hex`, WebAssembly) against viem's `keccak256` of the same hex, in one run.
 */
export const lookupPlanning = (chain: ChainConfig, rounds: number): ReadonlyArray<string> => {
  const times: Array<number> = [];
  let calls = 0;
  for (let round = 0; round < rounds; round++) {
    const slice = syntheticTokens(LOOKUP_SLICE, 0x5eed0000 + round * LOOKUP_SLICE);
    const started = performance.now();
    calls = planFactoryLookups(chain, lookupTokens(chain, slice)).calls.length;
    times.push(performance.now() - started);
  }
  const keys = lookupPairs(chain, lookupTokens(chain, syntheticTokens(LOOKUP_SLICE, 0x7e570000))).flatMap(
    (pair) => v4Keys(chain, pair),
  );
  const encoded = keys.map((key) => encodeV4PoolKey(key) as Hex);
  /** µs a key, p50 of 5 passes over every key (the first pass warms the compiler). */
  const perKey = (hash: (i: number) => string) => {
    const passes: Array<number> = [];
    for (let pass = 0; pass < 6; pass++) {
      const started = performance.now();
      for (let i = 0; i < keys.length; i++) hash(i);
      if (pass > 0) passes.push(((performance.now() - started) * 1000) / keys.length);
    }
    return median(passes);
  };
  const ours = perKey((i) => keccak256Hex(encoded[i]!));
  const viem = perKey((i) => keccak256(encoded[i]!));
  if (keys.some((key, i) => v4PoolId(key) !== keccak256(encoded[i]!)))
    throw new Error("v4PoolId disagrees with viem's keccak256 of the same key");
  return [
    `planning one factory lookup of ${LOOKUP_SLICE} never-seen tokens on chain ${chain.chain_id}'s registry (${calls} calls), p50 of ${rounds}: ${median(times).toFixed(2)} ms`,
    `hashing a V4 pool key's 160 encoded bytes (${keys.length} keys, p50 of 5 passes): the service's WebAssembly Keccak ${ours.toFixed(2)} us, viem's keccak256 ${viem.toFixed(2)} us (x${(viem / ours).toFixed(1)})`,
  ];
};
