import { type Hex, type PublicClient, parseAbi } from "viem";
import type { ManifestChain, ManifestPool } from "../../src/devnet/DevnetManifest.js";

/**
 * An independent, plain-float reimplementation of docs/pricing.md for tests:
 * read a pool's state at a block straight from the chain and compute the price
 * of `token` in the pool's other token and the other side's depth.
 */
const abi = parseAbi([
  "function getReserves() view returns (uint112, uint112, uint32)",
  "function slot0() view returns (uint160, int24, uint16, uint16, uint16, uint8, bool)",
  "function liquidity() view returns (uint128)",
  "function balanceOf(address) view returns (uint256)",
  "function getSlot0(bytes32) view returns (uint160, int24, uint24, uint24)",
  "function getLiquidity(bytes32) view returns (uint128)",
]);

export interface ReferenceQuote {
  /** Units of the other token per unit of `token`. */
  readonly price: number;
  /** Whole units of the other token backing the price. */
  readonly otherDepth: number;
  readonly pool: ManifestPool;
}

export const referenceQuote = async (
  client: PublicClient,
  chain: ManifestChain,
  pool: ManifestPool,
  token: string,
  blockNumber: bigint,
): Promise<ReferenceQuote> => {
  const decimals = (address: string) =>
    Object.values(chain.tokens).find((t) => t.address.toLowerCase() === address.toLowerCase())!.decimals;
  const d0 = decimals(pool.token0);
  const d1 = decimals(pool.token1);
  const read = <T>(address: string, functionName: string, args: ReadonlyArray<unknown> = []) =>
    client.readContract({
      address: address as Hex,
      abi,
      functionName: functionName as "liquidity",
      args: args as [],
      blockNumber,
    }) as Promise<T>;
  let price0in1: number;
  let depth0: number;
  let depth1: number;
  if (pool.kind === "v2") {
    const [r0, r1] = await read<[bigint, bigint, number]>(pool.address!, "getReserves");
    price0in1 = Number(r1) / 10 ** d1 / (Number(r0) / 10 ** d0);
    depth0 = Number(r0) / 10 ** d0;
    depth1 = Number(r1) / 10 ** d1;
  } else {
    const v4 = pool.kind === "v4";
    const stateView = chain.contracts.uniswap_v4_state_view!;
    const holder = v4 ? chain.contracts.uniswap_v4_pool_manager! : pool.address!;
    const [sqrt] = v4
      ? await read<[bigint]>(stateView, "getSlot0", [pool.pool_id])
      : await read<[bigint]>(pool.address!, "slot0");
    const liquidity = v4
      ? await read<bigint>(stateView, "getLiquidity", [pool.pool_id])
      : await read<bigint>(pool.address!, "liquidity");
    const held0 = await read<bigint>(pool.token0, "balanceOf", [holder]);
    const held1 = await read<bigint>(pool.token1, "balanceOf", [holder]);
    const s = Number(sqrt) / 2 ** 96;
    price0in1 = s * s * 10 ** (d0 - d1);
    const virtual0 = Number(liquidity) / s;
    const virtual1 = Number(liquidity) * s;
    depth0 = Math.min(virtual0, Number(held0)) / 10 ** d0;
    depth1 = Math.min(virtual1, Number(held1)) / 10 ** d1;
  }
  return pool.token0.toLowerCase() === token.toLowerCase()
    ? { price: price0in1, otherDepth: depth1, pool }
    : { price: 1 / price0in1, otherDepth: depth0, pool };
};

/** The deepest of `pools` for `token` against an asset worth `otherUsd`: price and pool size in USD. */
export const deepest = async (
  client: PublicClient,
  chain: ManifestChain,
  pools: ReadonlyArray<ManifestPool>,
  token: string,
  otherUsd: number,
  blockNumber: bigint,
) => {
  const quotes = await Promise.all(
    pools.map((pool) => referenceQuote(client, chain, pool, token, blockNumber)),
  );
  const best = quotes.reduce((a, b) => (b.otherDepth > a.otherDepth ? b : a));
  return { priceUsd: best.price * otherUsd, poolSize: 2 * best.otherDepth * otherUsd, pool: best.pool };
};
